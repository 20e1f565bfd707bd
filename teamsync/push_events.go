package teamsync

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// This file holds the events' part of a push: what is already on the server
// (the covered id spans), the scan of the store into batches, their
// preparation (decode, secret scan, search chunks) on worker goroutines, and
// the writers that send each batch in one transaction.

// DefaultWriters is the number of connections a push sends batches over
// at once: the server indexes one batch while it receives another.
const DefaultWriters = 2

// prepWorkers is the number of goroutines that decode, scan and encode
// batches.
const prepWorkers = 2

// eventBatch is one batch of events on its way: scanned, then prepared,
// then sent in one transaction with its chunks and the range of event ids
// it covers.
type eventBatch struct {
	seq         int   // its place in the scan
	after, upto int64 // the event ids it covers: (after, upto]
	events      []store.ScannedEvent
	created     []string // the session created of each event
	rows        [][]any
	chunks      [][]any
	redactions  []Redaction
	unscanned   int
	sent        int64 // the events sent, once committed
}

// span is a range of event ids (after, upto] that a committed batch
// covered.
type span struct{ after, upto int64 }

// pushed returns the end of the covered prefix of the store's event ids
// (every event id up to it was sent) and the spans covered above it.
func (p *pusher) pushed(ctx context.Context) (int64, []span, error) {
	rows, err := p.db.conn.Query(ctx, `SELECT after_id, upto_id FROM lazuli_pushed WHERE store_id = $1 ORDER BY after_id, upto_id`, p.id)
	if err != nil {
		return 0, nil, p.db.wrap("read what was pushed", err)
	}
	spans, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (span, error) {
		var s span
		return s, r.Scan(&s.after, &s.upto)
	})
	if err != nil {
		return 0, nil, p.db.wrap("read what was pushed", err)
	}
	var w int64
	var above []span
	prefix := 0
	for _, s := range spans {
		if s.after <= w {
			w = max(w, s.upto)
			prefix++
			continue
		}
		above = append(above, s)
	}
	if prefix > 1 {
		if err := p.mergeSpans(ctx, w); err != nil {
			return 0, nil, err
		}
	}
	return w, above, nil
}

// mergeSpans replaces the spans of the covered prefix with one, unless
// another push of the store is doing it (it never waits for one).
func (p *pusher) mergeSpans(ctx context.Context, w int64) error {
	err := inTx(ctx, p.db.conn, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtext($1))`, p.id).Scan(&mine); err != nil || !mine {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM lazuli_pushed WHERE store_id = $1 AND upto_id <= $2`, p.id, w); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO lazuli_pushed VALUES ($1, 0, $2)`, p.id, w)
		return err
	})
	return p.db.wrap("record what was pushed", err)
}

func covered(spans []span, id int64) bool {
	for _, s := range spans {
		if s.after < id && id <= s.upto {
			return true
		}
	}
	return false
}

// pushEvents sends the events the database does not hold yet. One
// goroutine scans the store into batches, prepWorkers prepare them
// (decode, secret scan, jsonb, chunks) and opt.Writers connections send
// them, each batch in a transaction of its own that also records the
// range of ids it covers; batches commit in any order.
func (p *pusher) pushEvents(ctx context.Context) error {
	w, done, err := p.pushed(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once     sync.Once
		firstErr error
		mu       sync.Mutex
		sent     = map[int]*eventBatch{} // committed batches, without their rows
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err; cancel() })
	}
	scanned := make(chan *eventBatch, prepWorkers)
	ready := make(chan *eventBatch, p.writers)
	go func() {
		defer close(scanned)
		if err := p.scanBatches(ctx, w, done, scanned); err != nil {
			fail(err)
		}
	}()
	var preps, writers sync.WaitGroup
	for range prepWorkers {
		preps.Go(func() {
			for b := range scanned {
				if err := p.prepare(ctx, b); err != nil {
					fail(err)
					continue
				}
				select {
				case ready <- b:
				case <-ctx.Done():
				}
			}
		})
	}
	go func() { preps.Wait(); close(ready) }()
	for i := range p.writers {
		writers.Go(func() {
			var conn *pgx.Conn // writer 0 uses the push's; the others open theirs on their first batch
			if i == 0 {
				conn = p.db.conn
			}
			defer func() {
				if i > 0 && conn != nil {
					conn.Close(context.Background()) //nolint:errcheck // nothing left to lose
				}
			}()
			for b := range ready {
				if ctx.Err() != nil {
					continue
				}
				if conn == nil {
					c, err := p.db.another(ctx)
					if err != nil {
						fail(err)
						continue
					}
					conn = c
				}
				if err := p.writeBatch(ctx, conn, b); err != nil {
					fail(err)
					continue
				}
				b.sent = int64(len(b.rows))
				b.rows, b.chunks = nil, nil
				mu.Lock()
				sent[b.seq] = b
				mu.Unlock()
				if err := p.hook("events-committed"); err != nil {
					fail(err)
				}
			}
		})
	}
	writers.Wait()
	seqs := slices.Sorted(maps.Keys(sent))
	for _, n := range seqs {
		b := sent[n]
		p.rep.Events += b.sent
		p.rep.Redactions = append(p.rep.Redactions, b.redactions...)
		p.rep.Unscanned += b.unscanned
	}
	return firstErr
}

// scanBatches reads the events above w, leaving out those of spans done
// and of deleted sessions, into batches of p.batch events.
func (p *pusher) scanBatches(ctx context.Context, w int64, done []span, out chan<- *eventBatch) error {
	n := 0
	b := &eventBatch{after: w, upto: w}
	send := func() error {
		b.seq, n = n, n+1
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		b = &eventBatch{after: b.upto, upto: b.upto}
		return nil
	}
	err := p.st.Scan().Events(ctx, store.ScanOptions{After: w, Raw: true}, func(evs []store.ScannedEvent) error {
		for _, e := range evs {
			b.upto = e.ID
			if covered(done, e.ID) {
				continue
			}
			sess, ok, err := p.session(ctx, e.SessionID)
			if err != nil {
				return err
			}
			if !ok {
				continue // deleted since the scan read it
			}
			b.events = append(b.events, e)
			b.created = append(b.created, sess.Created)
			if len(b.events) == p.batch {
				if err := send(); err != nil {
					return err
				}
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	if b.upto > b.after {
		return send()
	}
	return nil
}

// prepare turns a batch's events into rows and chunks, redacting secrets
// unless the push allows them.
func (p *pusher) prepare(ctx context.Context, b *eventBatch) error {
	evs := b.events
	redacted := map[int64]int{} // event id -> secrets replaced
	if !p.opt.AllowSecrets {
		b.redactions = redactEvents(evs, redacted)
	}
	b.rows = make([][]any, 0, len(evs))
	items := make([]chunkItem, 0, len(evs))
	for i := range evs {
		e := &evs[i]
		sum := sha256.Sum256(e.Payload)
		payload := e.Payload
		if e.Event.Kind == "" && !p.opt.AllowSecrets {
			// Undecodable: it cannot be scanned for secrets, so its bytes
			// stay here; the row keeps its place (seq, kind, char_len).
			payload = []byte{}
			b.unscanned++
		}
		var data any
		text := ""
		if e.Event.Kind != "" {
			var err error
			if n := redacted[e.ID]; n > 0 {
				if payload, err = p.st.Transfer().EncodePayload(e.Event); err != nil {
					return fmt.Errorf("encode event %d: %w", e.ID, err)
				}
			}
			js, err := codec.EncodeEventJSON(e.Event)
			if err != nil {
				return fmt.Errorf("encode event %d: %w", e.ID, err)
			}
			data = jsonbSafe(js)
			text = textSafe(search.EventText(&e.Event))
		}
		b.rows = append(b.rows, []any{p.id, e.ID, e.SessionID, b.created[i], e.Seq, string(e.Kind), e.CharLen,
			data, text, payload, sum[:], int32(redacted[e.ID])})
		items = append(items, chunkItem{id: e.ID, session: e.SessionID, created: b.created[i], text: text})
	}
	var ws wordSet
	b.chunks = chunkRows(p.id, items, &ws)
	b.events = nil
	return ctx.Err()
}

// writeBatch sends a batch in one transaction: its events, its chunks and
// the range of ids it covers. Events already there (another push of the
// same store sent them meanwhile) make the COPY fail; the batch then goes
// again with the events through a temporary table with ON CONFLICT DO
// NOTHING, so nothing is doubled and nobody waits.
func (p *pusher) writeBatch(ctx context.Context, conn *pgx.Conn, b *eventBatch) error {
	rest := func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"lazuli_event_chunks"}, chunkColumns, pgx.CopyFromRows(b.chunks)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO lazuli_pushed VALUES ($1, $2, $3)`, p.id, b.after, b.upto)
		return err
	}
	err := inTx(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"lazuli_events"}, eventColumns, p.source(b.rows)); err != nil {
			return err
		}
		if err := p.hook("lazuli_events-copied"); err != nil {
			return err
		}
		return rest(tx)
	})
	if isDuplicate(err) {
		err = inTx(ctx, conn, func(tx pgx.Tx) error {
			if err := insertIgnoring(ctx, tx, "lazuli_events", eventColumns, "store_id, event_id", b.rows); err != nil {
				return err
			}
			return rest(tx)
		})
	}
	return p.db.wrap("send events", err)
}

func isDuplicate(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// insertIgnoring inserts rows into table through a temporary table, leaving
// out those whose key is there already.
func insertIgnoring(ctx context.Context, tx pgx.Tx, table string, columns []string, key string, rows [][]any) error {
	tmp := "tmp_" + table
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS `+tmp+` (LIKE `+table+`) ON COMMIT DELETE ROWS`); err != nil {
		return err
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{tmp}, columns, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	cols := strings.Join(columns, ", ")
	_, err := tx.Exec(ctx, `INSERT INTO `+table+` (`+cols+`) SELECT `+cols+` FROM `+tmp+` ON CONFLICT (`+key+`) DO NOTHING`)
	return err
}

// redactEvents scans the events of each session in evs as an export would
// and replaces the events that hold secrets with redacted copies.
func redactEvents(evs []store.ScannedEvent, redacted map[int64]int) []Redaction {
	var out []Redaction
	bySession := map[int64][]int{}
	var order []int64
	for i, e := range evs {
		if e.Event.Kind == "" {
			continue
		}
		if _, ok := bySession[e.SessionID]; !ok {
			order = append(order, e.SessionID)
		}
		bySession[e.SessionID] = append(bySession[e.SessionID], i)
	}
	for _, sid := range order {
		idx := bySession[sid]
		src := export.Source{Session: store.Session{ID: sid}}
		for _, i := range idx {
			e := evs[i]
			src.Events = append(src.Events, store.StoredEvent{ID: e.ID, Seq: e.Seq, Kind: e.Kind, CharLen: e.CharLen, Event: e.Event})
		}
		rep := export.Scan(src)
		if len(rep.Findings) == 0 {
			continue
		}
		red := export.Redact(src, rep)
		bySeq := map[int64]int{}
		for k, i := range idx {
			bySeq[evs[i].Seq] = k
		}
		for _, f := range rep.Findings {
			for _, l := range f.Locations {
				k, ok := bySeq[l.Seq]
				if !ok || l.Seq == 0 {
					continue
				}
				redacted[evs[idx[k]].ID]++
				out = append(out, Redaction{SessionID: sid, Seq: l.Seq, Field: l.Field, Rule: f.Rule, Preview: f.Preview})
			}
		}
		for k, i := range idx {
			if redacted[evs[i].ID] > 0 {
				evs[i].Event = red.Events[k].Event
			}
		}
	}
	return out
}
