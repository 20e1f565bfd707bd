package teamsync

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// ErrNotFound reports a team session that does not exist.
var ErrNotFound = errors.New("no such team session")

// Session is a session of the team database: `lazuli ls --json`'s shape
// (ID is the session's number in the team database, which `team show`
// and `team pull` take) plus where it comes from.
type Session struct {
	export.JSONSession
	SessionID  int64  `json:"session_id"` // its id in its own store
	StoreID    string `json:"store_id"`
	Repository string `json:"repository"`
	Machine    string `json:"machine"`
	User       string `json:"user"`
	Turns      int64  `json:"turns"`
	// Damaged says what is wrong with a row that the database holds in a
	// shape Lazuli never writes ("name is NULL"); "" for a sound row. A
	// damaged row is listed (marked: Store's Damage), never pulled.
	Damaged string `json:"damaged,omitempty"`
}

// Store returns the session as a store.Session with the team number as
// its id (for views and exports).
func (s Session) Store() store.Session {
	j := s.JSONSession
	return store.Session{ID: j.ID, Name: j.Name, Worktree: j.Worktree, Created: j.Created, Completed: j.Completed,
		DurationMS: j.DurationMS, CostUSD: (*float64)(j.CostUSD), LastClaudeUUID: j.LastClaudeUUID, EventCount: j.EventCount,
		MessageCount: j.MessageCount, CharsSinceCompaction: j.CharsSinceCompaction, Damage: s.Damaged}
}

// Filter narrows a listing; empty fields match everything.
type Filter struct {
	Repository, Worktree, Machine, User string
	Limit                               int // ≤ 0: no limit
}

// readColumns are the columns of a Session (their names, and the SQL that
// reads them), each read as text so that no value (NULL, or of another
// type than Lazuli's schema says) makes the scan of the whole listing
// fail: scanSession parses them and marks the row damaged instead.
var readColumns = [][2]string{{"team_id", "team_id"}, {"session_id", "session_id"}, {"store_id", "store_id"},
	{"name", "name"}, {"worktree", "worktree"}, {"repository", "repository"}, {"machine", "machine"},
	{"username", "username"}, {"created", "created"}, {"completed", "completed"}, {"duration_ms", "duration_ms"},
	{"cost_usd", "coalesce(usage_cost_usd, cost_usd)"}, {"last_claude_uuid", "last_claude_uuid"},
	{"event_count", "event_count"}, {"message_count", "message_count"},
	{"chars_since_compaction", "chars_since_compaction"}, {"turns", "turns"}}

var sessionSelect = func() string {
	cols := make([]string, len(readColumns))
	for i, c := range readColumns {
		cols[i] = "(" + c[1] + ")::text"
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM lazuli_sessions"
}()

// scanSession reads a row of sessionSelect. A value the row should not
// hold (a NULL where the schema has NOT NULL, a number that is not one)
// is named in Session.Damaged; the rest of the row is read as usual.
func scanSession(row pgx.Row) (Session, error) {
	vals := make([]*string, len(readColumns))
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var s Session
	if err := row.Scan(dest...); err != nil {
		return s, err
	}
	var bad []string
	text := func(i int) string { // a NOT NULL column
		if vals[i] == nil {
			bad = append(bad, readColumns[i][0]+" is NULL")
			return ""
		}
		return *vals[i]
	}
	integer := func(i int) int64 {
		v := text(i)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil && vals[i] != nil {
			bad = append(bad, readColumns[i][0]+" is not an integer")
		}
		return n
	}
	optInt := func(i int) *int64 {
		if vals[i] == nil {
			return nil
		}
		n := integer(i)
		return &n
	}
	j := &s.JSONSession
	j.ID, s.SessionID, s.StoreID = integer(0), integer(1), text(2)
	j.Name, j.Worktree, s.Repository, s.Machine, s.User = text(3), text(4), text(5), text(6), text(7)
	j.Created = text(8)
	if vals[9] != nil {
		b, err := strconv.ParseBool(*vals[9])
		if err != nil {
			bad = append(bad, "completed is not a boolean")
		}
		j.Completed = &b
	}
	j.DurationMS = optInt(10)
	if vals[11] != nil {
		f, err := strconv.ParseFloat(*vals[11], 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			bad = append(bad, "cost_usd is not a number")
		} else {
			j.CostUSD = (*codec.SerdeFloat)(&f)
		}
	}
	j.LastClaudeUUID = text(12)
	j.EventCount, j.MessageCount, j.CharsSinceCompaction, s.Turns = integer(13), integer(14), integer(15), integer(16)
	j.DisplayName = store.DisplayName(s.SessionID, j.Name)
	s.Damaged = strings.Join(bad, ", ")
	return s, nil
}

// List returns the team's sessions, grouped by repository and worktree,
// newest first within each.
func (db *DB) List(ctx context.Context, f Filter) ([]Session, error) {
	if err := db.CheckSchema(ctx); err != nil {
		return nil, err
	}
	q := sessionSelect + ` WHERE ($1 = '' OR repository = $1) AND ($2 = '' OR worktree = $2)
		AND ($3 = '' OR machine = $3) AND ($4 = '' OR username = $4)
		ORDER BY repository, worktree, created DESC, team_id DESC`
	args := []any{f.Repository, f.Worktree, f.Machine, f.User}
	if f.Limit > 0 {
		q += ` LIMIT $5`
		args = append(args, f.Limit)
	}
	rows, err := db.conn.Query(ctx, q, args...)
	if err != nil {
		return nil, db.wrap("list team sessions", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Session, error) { return scanSession(r) })
	if err != nil {
		return nil, db.wrap("list team sessions", err)
	}
	return list, nil
}

// Session returns the team session numbered id.
func (db *DB) Session(ctx context.Context, id int64) (Session, error) {
	if err := db.CheckSchema(ctx); err != nil {
		return Session{}, err
	}
	s, err := scanSession(db.conn.QueryRow(ctx, sessionSelect+` WHERE team_id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("team session %d: %w", id, ErrNotFound)
	}
	return s, db.wrap(fmt.Sprintf("read team session %d", id), err)
}

// teamEvent is a stored row of lazuli_events as read: a NULL seq, kind
// or char_len (which Lazuli never writes) reads as nil.
type teamEvent struct {
	seq, charLen *int64
	kind         *string
	data         []byte
	redacted     bool // the pusher replaced secrets in it
}

// rawEvents reads the stored rows of a session, in seq order; with limit,
// at most maxPullRows rows of maxPullBytes of payloads (errTooBig past
// them).
func (db *DB) rawEvents(ctx context.Context, s Session, limit bool) ([]teamEvent, error) {
	rows, err := db.conn.Query(ctx, `SELECT seq, kind, char_len, payload, coalesce(redactions, 0) > 0 FROM lazuli_events
		WHERE store_id = $1 AND session_id = $2 AND session_created = $3 ORDER BY seq`,
		s.StoreID, s.SessionID, s.Created)
	if err != nil {
		return nil, db.wrap("read team events", err)
	}
	defer rows.Close()
	var out []teamEvent
	var size int
	for rows.Next() {
		var e teamEvent
		if err := rows.Scan(&e.seq, &e.kind, &e.charLen, &e.data, &e.redacted); err != nil {
			return nil, db.wrap("read team events", err)
		}
		if size += len(e.data); limit && (size > maxPullBytes || len(out) == maxPullRows) {
			return nil, errTooBig
		}
		out = append(out, e)
	}
	return out, db.wrap("read team events", rows.Err())
}

// Events returns the transcript of a team session as a local session's
// loads it: decoded, with the read-time filter applied. A row that does
// not decode, or whose seq or kind is NULL, is shown as an undecodable
// event, as a local load shows one.
func (db *DB) Events(ctx context.Context, s Session) ([]store.StoredEvent, error) {
	raw, err := db.rawEvents(ctx, s, false)
	if err != nil {
		return nil, err
	}
	out := make([]store.StoredEvent, 0, len(raw))
	for i, r := range raw {
		ev, err := store.DecodePayload(r.data)
		if err != nil || r.seq == nil || r.kind == nil {
			ev = codec.Event{} // undecodable, as a local load shows it
		}
		se := store.StoredEvent{ID: int64(i + 1), Event: ev}
		if r.seq != nil {
			se.Seq = *r.seq
		}
		if r.kind != nil {
			se.Kind = codec.Kind(*r.kind)
		}
		if r.charLen != nil {
			se.CharLen = *r.charLen
		}
		out = append(out, se)
	}
	return store.FilterInjected(out), nil
}

// Transcript returns team session id with its events (as Events returns
// them) and compactions.
func (db *DB) Transcript(ctx context.Context, id int64) (Session, []store.StoredEvent, []store.Compaction, error) {
	s, err := db.Session(ctx, id)
	if err != nil {
		return s, nil, nil, err
	}
	events, err := db.Events(ctx, s)
	if err != nil {
		return s, nil, nil, err
	}
	comps, err := db.Compactions(ctx, s)
	return s, events, comps, err
}

// Compactions returns the compactions of a team session, in id order.
func (db *DB) Compactions(ctx context.Context, s Session) ([]store.Compaction, error) {
	// A NULL (a damaged row) reads as a boundary Pull refuses, or as empty.
	rows, err := db.conn.Query(ctx, `SELECT compaction_id, coalesce(after_seq, -1), coalesce(summary, ''), coalesce(created, '') FROM lazuli_compactions
		WHERE store_id = $1 AND session_id = $2 AND session_created = $3 ORDER BY compaction_id`,
		s.StoreID, s.SessionID, s.Created)
	if err != nil {
		return nil, db.wrap("read team compactions", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Compaction, error) {
		c := store.Compaction{SessionID: s.JSONSession.ID}
		err := r.Scan(&c.ID, &c.AfterSeq, &c.Summary, &c.Created)
		return c, err
	})
	return out, db.wrap("read team compactions", err)
}

// SearchBudget is the Options.Budget of the window's team searches, which
// the next query replaces: how long Search looks for hits after its first
// page of candidates, since a phrase of words every chunk holds but few
// events (say "race detected") reads every event. The result is then
// Partial, as a local search's is. The CLI sets none.
const SearchBudget = 500 * time.Millisecond

// searchWindow is how many of the newest chunks Search checks without the
// trigram index: enough for words most chunks hold, whose index lookup
// would recheck every chunk's words.
const searchWindow = 64

// budgetNote explains a search that ran out of its budget.
const budgetNote = "These words are in most of the team's sessions, so only the newest events holding all of them were checked in time: older matches may be missing. A longer or rarer phrase finds them."

// chunkRef is a chunk of events search reads.
type chunkRef struct {
	store       string
	session     int64
	created     string
	first, last int64
}

// Search finds the team's events whose text holds every word of query
// (the local search's query rules and snippets), newest session first:
// the page of them opt asks for (opt.Limit hits after the first
// opt.Offset), Result.More when others follow. It reads until the page is
// full unless opt.Budget runs out first (the Result is then Partial, with
// a Note); opt.Sessions is not supported. A hit's session_id is the team
// session number and its store is "team:MACHINE:PATH".
//
// The candidates are the events of the chunks (see chunks.go) whose words
// hold every word of the query's terms: first among the newest
// searchWindow chunks, then through the chunks' trigram index. Their
// events are read by event id and checked against the query here (which
// is faster than the server's ILIKE, and folds case as Lazuli does).
func (db *DB) Search(ctx context.Context, query string, opt search.Options) (search.Result, error) {
	start := time.Now()
	res := search.Result{Hits: []search.Hit{}}
	m, err := search.NewMatcher(query)
	if err != nil {
		return res, err
	}
	if err := db.CheckSchema(ctx); err != nil {
		return res, err
	}
	if opt.Sessions {
		return res, errors.New("team search lists hits, not sessions")
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = search.DefaultLimit
	}
	skip := max(opt.Offset, 0) // matches before the page
	chunkWhere := []string{"true"}
	var chunkArgs []any
	for _, t := range m.Terms() {
		for _, w := range termWords(t) {
			chunkArgs = append(chunkArgs, "%"+likeEscape(w)+"%")
			chunkWhere = append(chunkWhere, fmt.Sprintf("words LIKE $%d", len(chunkArgs)))
		}
	}
	order := ` ORDER BY session_created DESC, last_event DESC, store_id, session_id`
	cond := strings.Join(chunkWhere, " AND ")
	windowSQL := `SELECT store_id, session_id, session_created, first_event, last_event FROM (SELECT * FROM lazuli_event_chunks` +
		order + fmt.Sprintf(` LIMIT %d) c WHERE `, searchWindow) + cond + order
	indexSQL := `SELECT store_id, session_id, session_created, first_event, last_event FROM lazuli_event_chunks WHERE ` + cond + order
	// The events of a page of chunks, by their ids (the primary key: the
	// OFFSET 0 keeps the planner from reading whole sessions by the
	// session index and filtering them).
	// A NULL where Lazuli writes none (a damaged row) reads as empty.
	eventSQL := `SELECT e.store_id, e.event_id, s.team_id, coalesce(s.session_id, 0), coalesce(s.name, ''),
			coalesce(s.worktree, ''), coalesce(s.created, ''), coalesce(st.machine, ''), coalesce(st.path, ''),
			coalesce(e.seq, 0), coalesce(e.kind, ''), coalesce(e.text, '')
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[]) WITH ORDINALITY
			AS c(store_id, session_id, session_created, first_event, last_event, ord)
		CROSS JOIN LATERAL (SELECT * FROM lazuli_events e WHERE e.store_id = c.store_id
			AND e.event_id BETWEEN c.first_event AND c.last_event OFFSET 0) e
		JOIN lazuli_sessions s ON s.store_id = e.store_id AND s.session_id = e.session_id AND s.created = e.session_created
		JOIN lazuli_stores st ON st.store_id = e.store_id
		WHERE e.session_id = c.session_id AND e.session_created = c.session_created
		ORDER BY c.ord, e.event_id DESC`
	type eventKey struct {
		store string
		id    int64
	}
	seen := map[eventKey]bool{} // an event two pushes of one store both chunked
	pages := 0
	// read checks the events of chunks, a page at a time; it reports
	// whether the search is over (limit reached, or budget spent).
	read := func(chunks []chunkRef) (bool, error) {
		page := 8
		for len(chunks) > 0 {
			if opt.Budget > 0 && pages > 0 && time.Since(start) > opt.Budget {
				res.Partial, res.Note = true, budgetNote
				return true, nil
			}
			pages++
			n := min(page, len(chunks))
			page = min(2*page, 64)
			var stores, created []string
			var sessions, first, last []int64
			for _, c := range chunks[:n] {
				stores, sessions, created = append(stores, c.store), append(sessions, c.session), append(created, c.created)
				first, last = append(first, c.first), append(last, c.last)
			}
			chunks = chunks[n:]
			rows, err := db.conn.Query(ctx, eventSQL, stores, sessions, created, first, last)
			if err != nil {
				return false, err
			}
			for rows.Next() {
				var h search.Hit
				var k eventKey
				var sid int64
				var name, machine, path, text string
				if err := rows.Scan(&k.store, &k.id, &h.SessionID, &sid, &name, &h.Worktree, &h.Time, &machine, &path, &h.Seq, &h.Kind, &text); err != nil {
					rows.Close()
					return false, err
				}
				if seen[k] {
					continue
				}
				seen[k] = true
				if skip > 0 {
					if m.Has(text) {
						skip--
					}
					continue
				}
				snippet, hl, ok := m.Match(text)
				if !ok {
					continue
				}
				if len(res.Hits) == limit {
					rows.Close()
					res.More = true
					return true, nil
				}
				h.StorePath, h.DisplayName, h.Snippet, h.Highlights = "team:"+machine+":"+path, store.DisplayName(sid, name), snippet, hl
				res.Hits = append(res.Hits, h)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	newest, err := db.chunks(ctx, windowSQL, chunkArgs)
	if err != nil {
		return res, db.wrap("search the team", err)
	}
	if done, err := read(newest); done || err != nil {
		return res, db.wrap("search the team", err)
	}
	older, err := db.chunks(ctx, indexSQL, chunkArgs)
	if err != nil {
		return res, db.wrap("search the team", err)
	}
	checked := map[chunkRef]bool{}
	for _, c := range newest {
		checked[c] = true
	}
	rest := older[:0]
	for _, c := range older {
		if !checked[c] {
			rest = append(rest, c)
		}
	}
	_, err = read(rest)
	return res, db.wrap("search the team", err)
}

// chunks runs a query of chunk references.
func (db *DB) chunks(ctx context.Context, sql string, args []any) ([]chunkRef, error) {
	rows, err := db.conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (chunkRef, error) {
		var c chunkRef
		return c, r.Scan(&c.store, &c.session, &c.created, &c.first, &c.last)
	})
}

// likeEscape escapes LIKE's wildcards in s (the default escape is \).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// StatKeys are the groupings Stats knows, with the SQL of each key: over
// the sessions, or (model, backend) over the usage of their turns.
var StatKeys = map[string]string{
	"day":        `coalesce(to_char(created_day, 'YYYY-MM-DD'), '')`,
	"worktree":   `worktree`,
	"repository": `repository`,
	"machine":    `machine`,
	"user":       `username`,
	"session":    `'T' || team_id`,
	"model":      `model`,
	"backend":    `backend`,
}

// Stats totals the team's usage by key (see StatKeys), in the rows of
// `lazuli stats --json` that a store's insight index gives, over sessions
// created on or after since ("" for all time, else YYYY-MM-DD). The usage
// is what the pushers' insight indexes supplied (tokens 0 without it;
// cost then falls back to the sessions' own completion cost). By model or
// backend, it sums the usage of turns reported since the day, with the
// sessions and turns that had it.
func (db *DB) Stats(ctx context.Context, by, since string) ([]insight.Totals, error) {
	key, ok := StatKeys[by]
	if !ok {
		return nil, fmt.Errorf("unknown grouping %q (want day, worktree, repository, machine, user, session, model or backend)", by)
	}
	if err := db.CheckSchema(ctx); err != nil {
		return nil, err
	}
	wt := `''`
	if by == "session" {
		wt = `coalesce(min(worktree), '')`
	}
	key = `coalesce((` + key + `)::text, '')` // a damaged row's NULL groups as ""
	q := `SELECT ` + key + ` AS k, ` + wt + `, count(*), coalesce(sum(turns), 0)::bigint,
		coalesce(sum(input_tokens), 0)::bigint, coalesce(sum(output_tokens), 0)::bigint,
		coalesce(sum(cache_read_tokens), 0)::bigint, coalesce(sum(cache_write_tokens), 0)::bigint,
		coalesce(sum(reasoning_tokens), 0)::bigint, coalesce(sum(coalesce(usage_cost_usd, cost_usd)), 0)::float8,
		coalesce(bool_or(cost_estimated), false)
		FROM lazuli_sessions WHERE ($1 = '' OR created_day >= $1::date) GROUP BY k ORDER BY k`
	if by == "model" || by == "backend" {
		q = `SELECT ` + key + ` AS k, '', count(DISTINCT (store_id, session_id, session_created)),
			count(DISTINCT (store_id, session_id, session_created, turn)),
			sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cache_read_tokens)::bigint,
			sum(cache_write_tokens)::bigint, sum(reasoning_tokens)::bigint, sum(cost_usd)::float8, bool_or(cost_estimated)
			FROM lazuli_usage WHERE ($1 = '' OR day >= $1::date) GROUP BY k ORDER BY k`
	}
	rows, err := db.conn.Query(ctx, q, since)
	if err != nil {
		return nil, db.wrap("team stats", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (insight.Totals, error) { return scanStat(r) })
	if out == nil {
		out = []insight.Totals{}
	}
	return out, db.wrap("team stats", err)
}

func scanStat(r pgx.Row) (insight.Totals, error) {
	var s insight.Totals
	err := r.Scan(&s.Key, &s.Worktree, &s.Sessions, &s.Turns, &s.Input, &s.Output,
		&s.CacheRead, &s.CacheWrite, &s.Reasoning, &s.CostUSD, &s.CostEstimated)
	return s, err
}

// SessionUsage returns the usage of team session id: its row of `team
// stats --by session`.
func (db *DB) SessionUsage(ctx context.Context, id int64) (insight.Totals, error) {
	s, err := scanStat(db.conn.QueryRow(ctx, `SELECT 'T' || team_id, coalesce(worktree, ''), 1, coalesce(turns, 0), coalesce(input_tokens, 0),
		coalesce(output_tokens, 0), coalesce(cache_read_tokens, 0), coalesce(cache_write_tokens, 0),
		coalesce(reasoning_tokens, 0), coalesce(usage_cost_usd, cost_usd, 0), coalesce(cost_estimated, false)
		FROM lazuli_sessions WHERE team_id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("team session %d: %w", id, ErrNotFound)
	}
	return s, db.wrap(fmt.Sprintf("read the usage of team session %d", id), err)
}
