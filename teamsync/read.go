package teamsync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-app/lazuli/export"
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
}

// Store returns the session as a store.Session with the team number as
// its id (for views and exports).
func (s Session) Store() store.Session {
	j := s.JSONSession
	return store.Session{ID: j.ID, Name: j.Name, Worktree: j.Worktree, Created: j.Created, Completed: j.Completed,
		DurationMS: j.DurationMS, CostUSD: (*float64)(j.CostUSD), LastClaudeUUID: j.LastClaudeUUID, EventCount: j.EventCount,
		MessageCount: j.MessageCount, CharsSinceCompaction: j.CharsSinceCompaction}
}

// Filter narrows a listing; empty fields match everything.
type Filter struct {
	Repository, Worktree, Machine, User string
	Limit                               int // ≤ 0: no limit
}

const sessionSelect = `SELECT team_id, session_id, store_id, name, worktree, repository, machine, username, created,
	completed, duration_ms, coalesce(usage_cost_usd, cost_usd), last_claude_uuid, event_count, message_count,
	chars_since_compaction, turns FROM lazuli_sessions`

func scanSession(row pgx.Row) (Session, error) {
	var s Session
	var cost *float64
	j := &s.JSONSession
	err := row.Scan(&j.ID, &s.SessionID, &s.StoreID, &j.Name, &j.Worktree, &s.Repository, &s.Machine, &s.User,
		&j.Created, &j.Completed, &j.DurationMS, &cost, &j.LastClaudeUUID, &j.EventCount, &j.MessageCount,
		&j.CharsSinceCompaction, &s.Turns)
	j.CostUSD = (*store.SerdeFloat)(cost)
	j.DisplayName = store.DisplayName(s.SessionID, j.Name)
	return s, err
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

// rawEvents reads the stored rows of a session, in seq order.
func (db *DB) rawEvents(ctx context.Context, s Session) ([]store.RawEvent, error) {
	rows, err := db.conn.Query(ctx, `SELECT seq, kind, char_len, payload FROM lazuli_events
		WHERE store_id = $1 AND session_id = $2 AND session_created = $3 ORDER BY seq`,
		s.StoreID, s.SessionID, s.Created)
	if err != nil {
		return nil, db.wrap("read team events", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.RawEvent, error) {
		var e store.RawEvent
		var kind string
		err := r.Scan(&e.Seq, &kind, &e.CharLen, &e.Data)
		e.Kind = store.Kind(kind)
		return e, err
	})
	return out, db.wrap("read team events", err)
}

// Events returns the transcript of a team session as a local session's
// loads it: decoded, with the read-time filter applied.
func (db *DB) Events(ctx context.Context, s Session) ([]store.StoredEvent, error) {
	raw, err := db.rawEvents(ctx, s)
	if err != nil {
		return nil, err
	}
	out := make([]store.StoredEvent, 0, len(raw))
	for i, r := range raw {
		ev, err := store.DecodePayload(r.Data)
		if err != nil {
			ev = store.Event{} // undecodable, as a local load shows it
		}
		out = append(out, store.StoredEvent{ID: int64(i + 1), Seq: r.Seq, Kind: r.Kind, CharLen: r.CharLen, Event: ev})
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
	rows, err := db.conn.Query(ctx, `SELECT compaction_id, after_seq, summary, created FROM lazuli_compactions
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

// Search finds the team's events whose text holds every word of query
// (the local search's query rules and snippets), newest session first; at
// most limit hits, and more reports that there are others. A hit's
// session_id is the team session number and its store is
// "team:MACHINE:PATH".
func (db *DB) Search(ctx context.Context, query string, limit int) (hits []search.Hit, more bool, err error) {
	m, err := search.NewMatcher(query)
	if err != nil {
		return nil, false, err
	}
	if err := db.CheckSchema(ctx); err != nil {
		return nil, false, err
	}
	if limit <= 0 {
		limit = search.DefaultLimit
	}
	var where []string
	var args []any
	for _, t := range m.Terms() {
		args = append(args, "%"+likeEscape(t)+"%")
		where = append(where, fmt.Sprintf("e.text ILIKE $%d", len(args)))
	}
	// Candidates come newest first by (session created, seq); each is checked
	// against the query in Go (ILIKE folds case differently from Lazuli).
	batch := 4 * (limit + 1)
	args = append(args, batch, 0)
	// The newest candidates come from the events alone (by the index on
	// session created and event id, or the trigram index for rare words);
	// only they are joined with their sessions.
	sqlText := `SELECT s.team_id, s.session_id, s.name, s.worktree, s.created, st.machine, st.path, e.seq, e.kind, e.text
		FROM (SELECT store_id, event_id, session_id, session_created, seq, kind, text FROM lazuli_events e
			WHERE ` + strings.Join(where, " AND ") + fmt.Sprintf(` ORDER BY session_created DESC, event_id DESC LIMIT $%d OFFSET $%d) e`, len(args)-1, len(args)) + `
		JOIN lazuli_sessions s ON s.store_id = e.store_id AND s.session_id = e.session_id AND s.created = e.session_created
		JOIN lazuli_stores st ON st.store_id = e.store_id
		ORDER BY e.session_created DESC, e.event_id DESC`
	hits = []search.Hit{}
	for offset := 0; ; offset += batch {
		args[len(args)-1] = offset
		rows, err := db.conn.Query(ctx, sqlText, args...)
		if err != nil {
			return nil, false, db.wrap("search the team", err)
		}
		n := 0
		for rows.Next() {
			n++
			var h search.Hit
			var sid int64
			var name, machine, path, text string
			if err := rows.Scan(&h.SessionID, &sid, &name, &h.Worktree, &h.Time, &machine, &path, &h.Seq, &h.Kind, &text); err != nil {
				rows.Close()
				return nil, false, db.wrap("search the team", err)
			}
			snippet, hl, ok := m.Match(text)
			if !ok {
				continue
			}
			if len(hits) == limit {
				rows.Close()
				return hits, true, nil
			}
			h.StorePath, h.DisplayName, h.Snippet, h.Highlights = "team:"+machine+":"+path, store.DisplayName(sid, name), snippet, hl
			hits = append(hits, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, false, db.wrap("search the team", err)
		}
		if n < batch {
			return hits, false, nil
		}
	}
}

// likeEscape escapes LIKE's wildcards in s (the default escape is \).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// StatRow is one row of `lazuli stats --json`, over the team.
type StatRow struct {
	Key              string  `json:"key"`
	Worktree         string  `json:"worktree,omitempty"` // for by=session
	Sessions         int64   `json:"sessions"`
	Turns            int64   `json:"turns"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	CostEstimated    bool    `json:"cost_estimated"`
}

// StatKeys are the groupings Stats knows, with the SQL of each key.
var StatKeys = map[string]string{
	"day":        `coalesce(to_char(created_day, 'YYYY-MM-DD'), '')`,
	"worktree":   `worktree`,
	"repository": `repository`,
	"machine":    `machine`,
	"user":       `username`,
	"session":    `'T' || team_id`,
}

// Stats totals the team's usage by key (see StatKeys), over sessions
// created on or after since ("" for all time, else YYYY-MM-DD). The usage
// columns are those the insight index supplied at push time (0 without
// it); cost falls back to the sessions' own completion cost.
func (db *DB) Stats(ctx context.Context, by, since string) ([]StatRow, error) {
	key, ok := StatKeys[by]
	if !ok {
		return nil, fmt.Errorf("unknown grouping %q (want day, worktree, repository, machine, user or session)", by)
	}
	if err := db.CheckSchema(ctx); err != nil {
		return nil, err
	}
	wt := `''`
	if by == "session" {
		wt = `min(worktree)`
	}
	rows, err := db.conn.Query(ctx, `SELECT `+key+` AS k, `+wt+`, count(*), coalesce(sum(turns), 0)::bigint,
		coalesce(sum(input_tokens), 0)::bigint, coalesce(sum(output_tokens), 0)::bigint,
		coalesce(sum(cache_read_tokens), 0)::bigint, coalesce(sum(cache_write_tokens), 0)::bigint,
		coalesce(sum(reasoning_tokens), 0)::bigint, coalesce(sum(coalesce(usage_cost_usd, cost_usd)), 0)::float8,
		coalesce(bool_or(cost_estimated), false)
		FROM lazuli_sessions WHERE ($1 = '' OR created_day >= $1::date) GROUP BY k ORDER BY k`, since)
	if err != nil {
		return nil, db.wrap("team stats", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (StatRow, error) {
		var s StatRow
		err := r.Scan(&s.Key, &s.Worktree, &s.Sessions, &s.Turns, &s.InputTokens, &s.OutputTokens,
			&s.CacheReadTokens, &s.CacheWriteTokens, &s.ReasoningTokens, &s.CostUSD, &s.CostEstimated)
		return s, err
	})
	if out == nil {
		out = []StatRow{}
	}
	return out, db.wrap("team stats", err)
}

// Pull copies team session id into dst as a drop or merge does: a new
// session id, the payloads byte for byte as they were pushed (redacted
// ones as redacted), compactions kept; a session dst already holds
// exactly is not copied again (dup). Undecodable events pushed without
// their bytes are left out.
func (db *DB) Pull(ctx context.Context, id int64, dst *store.Store) (localID int64, dup bool, err error) {
	s, err := db.Session(ctx, id)
	if err != nil {
		return 0, false, err
	}
	all, err := db.rawEvents(ctx, s)
	if err != nil {
		return 0, false, err
	}
	raw := all[:0:0]
	for _, e := range all {
		if len(e.Data) > 0 { // an undecodable event pushed without its bytes
			raw = append(raw, e)
		}
	}
	comps, err := db.Compactions(ctx, s)
	if err != nil {
		return 0, false, err
	}
	sess := s.Store()
	return dst.ImportRaw(ctx, store.RawSession{Session: sess, Events: raw, Compactions: comps})
}
