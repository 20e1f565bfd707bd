package teamsync

// This file holds the word chunks team search finds events by: for each
// session in a pushed batch, runs of up to chunkEvents of its events with
// the distinct words of their texts. A trigram index over the chunks'
// words finds the chunks that may hold a query's words; search then checks
// those chunks' events. Indexing each event's full text (as a trigram GIN
// index on the events table did) cost the server about 1 ms an event.

import (
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// chunkEvents is the most events one chunk holds.
const chunkEvents = 256

// minWordRunes is the shortest word a chunk keeps: a trigram index finds
// nothing by a shorter one, so search does not look for shorter words.
const minWordRunes = 3

var chunkColumns = []string{"store_id", "session_id", "session_created", "first_event", "last_event", "words"}

// chunkItem is what a chunk needs of an event.
type chunkItem struct {
	id, session int64
	created     string
	text        string
}

// chunkRows groups items (events of one batch, in id order) by session
// into chunks of at most chunkEvents events, each with the distinct words
// of its events' texts.
func chunkRows(storeID string, items []chunkItem, ws *wordSet) [][]any {
	type key struct {
		id      int64
		created string
	}
	groups := map[key][]int{}
	var order []key
	for i, it := range items {
		k := key{it.session, it.created}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var rows [][]any
	for _, k := range order {
		idx := groups[k]
		for start := 0; start < len(idx); start += chunkEvents {
			part := idx[start:min(start+chunkEvents, len(idx))]
			ws.reset()
			for _, i := range part {
				ws.add(items[i].text)
			}
			rows = append(rows, []any{storeID, k.id, k.created, items[part[0]].id, items[part[len(part)-1]].id, ws.String()})
		}
	}
	return rows
}

// wordSet collects the distinct words of texts: the maximal runs of
// letters and digits, lower-cased rune by rune as search folds text, of at
// least minWordRunes runes. Every word a query term holds is then a
// substring of a word of every text the term occurs in.
type wordSet struct {
	seen map[string]struct{}
	out  []byte
	buf  []byte
}

func (w *wordSet) reset() {
	if w.seen == nil {
		w.seen = map[string]struct{}{}
	}
	clear(w.seen)
	w.out = w.out[:0]
}

// String returns the words, separated by spaces, in order of first
// occurrence.
func (w *wordSet) String() string { return string(w.out) }

func (w *wordSet) add(text string) {
	buf, runes := w.buf[:0], 0
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				buf, runes = append(buf, c), runes+1
			case 'A' <= c && c <= 'Z':
				buf, runes = append(buf, c+'a'-'A'), runes+1
			default:
				w.word(buf, runes)
				buf, runes = buf[:0], 0
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf, runes = utf8.AppendRune(buf, unicode.ToLower(r)), runes+1
			continue
		}
		w.word(buf, runes)
		buf, runes = buf[:0], 0
	}
	w.word(buf, runes)
	w.buf = buf
}

func (w *wordSet) word(b []byte, runes int) {
	if runes < minWordRunes {
		return
	}
	if _, ok := w.seen[string(b)]; ok {
		return
	}
	w.seen[string(b)] = struct{}{}
	if len(w.out) > 0 {
		w.out = append(w.out, ' ')
	}
	w.out = append(w.out, b...)
}

// termWords returns the words of a folded query term that a chunk's words
// must hold (as substrings) for the term to occur in one of its events.
func termWords(term string) []string {
	var ws wordSet
	ws.reset()
	ws.add(term)
	if len(ws.out) == 0 {
		return nil
	}
	return strings.Split(ws.String(), " ")
}

// backfillChunks is migration 2's Go part: the chunks of every event
// pushed before it, as a push of batches of DefaultBatch events makes
// them; then the statements afterBackfill.
func backfillChunks(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT store_id, event_id, session_id, session_created, text FROM lazuli_events
		ORDER BY store_id, event_id`)
	if err != nil {
		return err
	}
	var out [][]any
	var items []chunkItem
	var ws wordSet
	store := ""
	flush := func() {
		out = append(out, chunkRows(store, items, &ws)...)
		items = items[:0]
	}
	for rows.Next() {
		var it chunkItem
		var id string
		if err := rows.Scan(&id, &it.id, &it.session, &it.created, &it.text); err != nil {
			rows.Close()
			return err
		}
		if id != store || len(items) == DefaultBatch {
			flush()
			store = id
		}
		items = append(items, it)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	flush()
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"lazuli_event_chunks"}, chunkColumns, pgx.CopyFromRows(out)); err != nil {
		return err
	}
	for _, stmt := range afterBackfill {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
	}
	return lz4(ctx, tx)
}

// lz4 has the server compress the events' text and jsonb and the chunks'
// words with lz4 rather than pglz (half the server's time of a push, and
// a search's rechecks of the chunks' words), when it can: PostgreSQL 14
// or later built with lz4, as Debian's and the managed services' are.
func lz4(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SAVEPOINT lz4`); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `ALTER TABLE lazuli_events ALTER COLUMN text SET COMPRESSION lz4, ALTER COLUMN data SET COMPRESSION lz4`)
	if err == nil {
		_, err = tx.Exec(ctx, `ALTER TABLE lazuli_event_chunks ALTER COLUMN words SET COMPRESSION lz4`)
	}
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || (pgErr.Code != "0A000" && pgErr.Code != "42601") { // not supported; no such syntax (13)
		return err
	}
	_, err = tx.Exec(ctx, `ROLLBACK TO SAVEPOINT lz4`)
	return err
}
