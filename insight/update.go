package insight

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// scanBatch is the events read and indexed per transaction.
const scanBatch = 4096

// Update brings the index up to date with the store: it removes the rows of
// deleted sessions, indexes the events added since the last Update in id
// order, one transaction per batch that also moves the high-water mark, and
// then re-derives the usage rows from the store's lazuli_usage table. It
// only reads the store. A damaged index is started over.
func (x *Index) Update(ctx context.Context) (UpdateStats, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.run(ctx, false)
}

// Rebuild drops everything the index holds and builds it again.
func (x *Index) Rebuild(ctx context.Context) (UpdateStats, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.run(ctx, true)
}

func (x *Index) run(ctx context.Context, rebuild bool) (UpdateStats, error) {
	start := time.Now()
	var s UpdateStats
	if x.db == nil {
		return s, fmt.Errorf("update insight index of %s: closed", x.st.Path())
	}
	unlock, err := lockUpdates(ctx, x.path) // one Update of the file at a time, across processes (lock.go)
	if err != nil {
		return s, fmt.Errorf("update insight index of %s: %w", x.st.Path(), err)
	}
	defer unlock()
	err = x.update(ctx, &s, rebuild)
	if err != nil && ctx.Err() == nil && indexdb.IsDamaged(err) {
		if err = x.recreate(ctx); err == nil {
			s = UpdateStats{}
			err = x.update(ctx, &s, true)
		}
	}
	s.Elapsed = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return s, fmt.Errorf("update insight index of %s: %w", x.st.Path(), err)
	}
	return s, nil
}

func (x *Index) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return indexdb.WriteTx(ctx, x.db, fn)
}

func (x *Index) update(ctx context.Context, s *UpdateStats, rebuild bool) error {
	version, err := x.st.Scan().Version(ctx)
	if err != nil {
		return err
	}
	if !rebuild && version != "" {
		if was, _ := indexdb.GetMeta(ctx, x.db, storeVersionKey); was == version {
			s.Unchanged = true // the store is as the index was last brought up to date with
			return nil
		}
	}
	if err := x.catchUp(ctx, s, rebuild); err != nil {
		return err
	}
	// version was read before the store was: a store written meanwhile has
	// another, and the next Update reads it again.
	return x.writeTx(ctx, func(tx *sql.Tx) error { return indexdb.SetMeta(ctx, tx, storeVersionKey, version) })
}

// storeVersionKey is the meta key of the store.Version the index was last
// brought wholly up to date with: while the store has it, Update reads
// nothing (the window updates the index on every session it shows).
const storeVersionKey = "store_version"

// catchUp brings the index up to date with the store, or rebuilds it.
func (x *Index) catchUp(ctx context.Context, s *UpdateStats, rebuild bool) error {
	sessions, err := x.st.Scan().Sessions(ctx)
	if err != nil {
		return err
	}
	byID := make(map[int64]store.Session, len(sessions))
	for _, ss := range sessions {
		byID[ss.ID] = ss
	}
	if !rebuild {
		same, err := x.sameStore(ctx, byID)
		if err != nil {
			return err
		}
		rebuild = !same
	}
	if rebuild {
		if err := x.writeTx(ctx, func(tx *sql.Tx) error { return reset(ctx, tx, x.st.Path()) }); err != nil {
			return err
		}
		s.Rebuilt = true
	}
	if s.Purged, err = x.purge(ctx, byID); err != nil {
		return err
	}
	u := &updater{x: x, sessions: byID, dirs: []string{worktreeDir(x.st.Path())}}
	if err := u.loadState(ctx); err != nil {
		return err
	}
	usage, err := x.readUsage(ctx)
	if err != nil {
		return err
	}
	hi := getMetaInt(ctx, x.db, "hi")
	err = x.st.Scan().Events(ctx, store.ScanOptions{After: hi, Batch: x.batch}, func(b []store.ScannedEvent) error {
		s.Events += int64(len(b))
		return x.writeTx(ctx, func(tx *sql.Tx) error { return u.batch(ctx, tx, b) })
	})
	if err != nil {
		return err
	}
	s.Usage, err = x.writeUsage(ctx, usage, byID)
	return err
}

// sameStore reports whether the store is still the file the index was
// built from (another file copied over it keeps the session ids): the
// event at the high-water mark must still be there, unchanged, unless its
// session was deleted; and no session the index has may be another one in
// the store whose events all come before the mark (an id AZUREAL reused
// since the last Update has its events after it).
func (x *Index) sameStore(ctx context.Context, sessions map[int64]store.Session) (bool, error) {
	hi := getMetaInt(ctx, x.db, "hi")
	if hi == 0 {
		return true, nil
	}
	b, err := x.st.Scan().IDBounds(ctx)
	if err != nil {
		return false, err
	}
	if b.MaxEventID < hi && (b.EventSequence < hi) {
		return false, nil // ids never go back: another, smaller file
	}
	evs, err := x.st.Scan().EventsByID(ctx, []int64{hi})
	if err != nil {
		return false, err
	}
	var now *indexdb.Mark
	if len(evs) == 1 {
		m := markOf(&evs[0], "")
		now = &m
	}
	at := indexdb.Mark{Session: getMetaInt(ctx, x.db, "hi_session"), Seq: getMetaInt(ctx, x.db, "hi_seq")}
	for k, v := range map[string]*string{"hi_kind": &at.Kind, "hi_created": &at.Created, "hi_hash": &at.Hash} {
		*v, _ = indexdb.GetMeta(ctx, x.db, k) // none (an index of an older Lazuli): not the same, built again once
	}
	ss, ok := sessions[at.Session]
	if !at.SameFile(now, ss.Created, ok) {
		return false, nil
	}
	stale, err := indexdb.StaleSessions(ctx, x.db, createdOf(sessions))
	if err != nil {
		return false, err
	}
	for _, id := range stale {
		if _, ok := sessions[id]; !ok {
			continue // deleted
		}
		first, err := x.st.Scan().FirstEventID(ctx, id)
		if err != nil || (first > 0 && first <= hi) {
			return false, err
		}
	}
	return true, nil
}

// markOf is the mark of event e of a session created at created.
func markOf(e *store.ScannedEvent, created string) indexdb.Mark {
	js, err := codec.EncodeEventJSON(e.Event)
	if err != nil || e.Event.Kind == "" {
		js = nil // undecodable: the kind and position still identify it
	}
	return indexdb.Mark{Session: e.SessionID, Seq: e.Seq, Kind: string(e.Kind), Created: created, Hash: indexdb.RowHash(js)}
}

// createdOf reports the created text of each of sessions, by id.
func createdOf(sessions map[int64]store.Session) func(int64) (string, bool) {
	return func(id int64) (string, bool) {
		s, ok := sessions[id]
		return s.Created, ok
	}
}

// purge removes the rows of sessions the store no longer has, or whose id
// now names another session, and their folders (meta cwd<id>), which a
// session reusing the id would otherwise inherit.
func (x *Index) purge(ctx context.Context, sessions map[int64]store.Session) (int, error) {
	gone, err := indexdb.StaleSessions(ctx, x.db, createdOf(sessions))
	if err != nil || len(gone) == 0 {
		return 0, err
	}
	err = x.writeTx(ctx, func(tx *sql.Tx) error {
		for lo := 0; lo < len(gone); lo += 500 {
			list, args := indexdb.InList(gone[lo:min(lo+500, len(gone))])
			for _, q := range []string{"DELETE FROM sessions WHERE id IN " + list, "DELETE FROM turns WHERE session IN " + list,
				"DELETE FROM files WHERE session IN " + list, "DELETE FROM refs WHERE session IN " + list,
				"DELETE FROM tools WHERE session IN " + list,
				"DELETE FROM meta WHERE key LIKE 'cwd%' AND CAST(substr(key, 4) AS INTEGER) IN " + list} {
				if _, err := tx.ExecContext(ctx, q, args...); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return len(gone), err
}

// usageUpdate is what an Update does to the usage rows: read before the
// events are scanned, so every row read has its events (stored in the
// same transaction) scanned by the time it is written.
type usageUpdate struct {
	version store.UsageVersion
	rows    []store.SessionUsage
	full    bool // replace every row, not append
	skip    bool // nothing changed
}

// readUsage reads the store's usage rows that changed since the last
// Update: only those added when the store's usage version grew by exactly
// them, else (a session deleted or replaced) all.
func (x *Index) readUsage(ctx context.Context) (usageUpdate, error) {
	v, err := x.st.Usage().Version(ctx)
	if err != nil {
		return usageUpdate{}, err
	}
	old := store.UsageVersion{Rows: getMetaInt(ctx, x.db, "usage_rows"), MaxID: getMetaInt(ctx, x.db, "usage_max"),
		Tokens: getMetaInt(ctx, x.db, "usage_tokens")}
	if v == old {
		return usageUpdate{skip: true}, nil
	}
	rows, err := x.st.Usage().Rows(ctx, old.MaxID)
	if err != nil {
		return usageUpdate{}, err
	}
	grown := old
	for _, r := range rows {
		grown.Rows++
		grown.MaxID = max(grown.MaxID, r.RowID)
		grown.Tokens += r.Input + r.Output + r.CacheRead
	}
	full := grown != v
	if full {
		if rows, err = x.st.Usage().Rows(ctx, 0); err != nil {
			return usageUpdate{}, err
		}
	}
	return usageUpdate{version: v, rows: rows, full: full}, nil
}

// writeUsage writes what readUsage read: each row in the turn its seq
// falls in, with a cost estimated where none was reported.
func (x *Index) writeUsage(ctx context.Context, u usageUpdate, sessions map[int64]store.Session) (int, error) {
	if u.skip {
		return 0, nil
	}
	v, rows, full := u.version, u.rows, u.full
	err := x.writeTx(ctx, func(tx *sql.Tx) error {
		if full {
			if _, err := tx.ExecContext(ctx, "DELETE FROM usage"); err != nil {
				return err
			}
		}
		skipped, err := insertUsageRows(ctx, tx, rows, sessions)
		if err != nil {
			return err
		}
		if skipped > 0 {
			v = store.UsageVersion{Rows: -1} // rows of a session newer than the list: read all next time
		}
		for k, n := range map[string]int64{"usage_rows": v.Rows, "usage_max": v.MaxID, "usage_tokens": v.Tokens} {
			if err := indexdb.SetMeta(ctx, tx, k, strconv.FormatInt(n, 10)); err != nil {
				return err
			}
		}
		return nil
	})
	return len(rows), err
}

// insertUsageRows adds usage rows to the index and returns how many it
// skipped because their session is not in sessions.
func insertUsageRows(ctx context.Context, tx *sql.Tx, rows []store.SessionUsage, sessions map[int64]store.Session) (int, error) {
	turnOf, err := tx.PrepareContext(ctx, "SELECT COALESCE(MAX(turn), 0) FROM turns WHERE session = ? AND first_seq <= ?")
	if err != nil {
		return 0, err
	}
	defer turnOf.Close()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO usage(session, turn, after_seq, day, at, source, model, backend,
		input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, cost_estimated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	skipped := 0
	for _, r := range rows {
		ss, ok := sessions[r.SessionID]
		if !ok {
			skipped++
			continue
		}
		var turn int64
		if err := turnOf.QueryRowContext(ctx, r.SessionID, max(r.AfterSeq, 1)).Scan(&turn); err != nil {
			return 0, err
		}
		cost, estimated := r.CostUSD, false
		if !r.HasCost {
			cost, estimated = EstimateCost(r.Model, r.Backend, r.Input, r.Output, r.CacheRead, r.CacheWrite), true
		}
		day := dayOf(r.At)
		if day == "" {
			day = dayOf(ss.Created)
		}
		if _, err := ins.ExecContext(ctx, r.SessionID, turn, r.AfterSeq, day, r.At, r.Source, r.Model, r.Backend,
			r.Input, r.Output, r.CacheRead, r.CacheWrite, r.Reasoning, cost, estimated); err != nil {
			return 0, err
		}
	}
	return skipped, nil
}

// dayOf is the YYYY-MM-DD of a store time.
func dayOf(t string) string {
	if len(t) < 10 {
		return ""
	}
	return t[:10]
}

// WorktreeDir is the worktree folder a store path belongs to.
func WorktreeDir(storePath string) string { return worktreeDir(storePath) }

// worktreeDir is the worktree folder a store path belongs to.
func worktreeDir(storePath string) string {
	dir := filepath.Dir(storePath)
	if filepath.Base(dir) == ".azureal" {
		return filepath.Dir(dir)
	}
	return dir
}

// updater indexes batches of events for one Update.
type updater struct {
	x        *Index
	sessions map[int64]store.Session
	dirs     []string         // folders paths are made relative to
	turn     map[int64]int64  // each session's current turn (its prompts so far)
	cwd      map[int64]string // each session's Init folder
	known    map[int64]bool   // sessions with a row
	rem      *remote
}

// loadState reads each indexed session's turn count and folder.
func (u *updater) loadState(ctx context.Context) error {
	u.turn, u.cwd, u.known = map[int64]int64{}, map[int64]string{}, map[int64]bool{}
	rows, err := u.x.db.QueryContext(ctx, "SELECT s.id, s.turns, COALESCE((SELECT value FROM meta WHERE key = 'cwd' || s.id), '') FROM sessions s")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, turns int64
		var cwd string
		if err := rows.Scan(&id, &turns, &cwd); err != nil {
			return err
		}
		u.turn[id], u.cwd[id], u.known[id] = turns, cwd, true
	}
	return rows.Err()
}

// session returns the store's session id, reading the sessions again
// when it is newer than the list (created during the Update).
func (u *updater) session(ctx context.Context, id int64) (store.Session, bool, error) {
	if ss, ok := u.sessions[id]; ok {
		return ss, true, nil
	}
	list, err := u.x.st.Scan().Sessions(ctx)
	if err != nil {
		return store.Session{}, false, err
	}
	for _, ss := range list {
		u.sessions[ss.ID] = ss
	}
	ss, ok := u.sessions[id]
	return ss, ok, nil
}

// remote returns the worktree's origin, read once.
func (u *updater) remote() remote {
	if u.rem == nil {
		r := gitRemote(u.dirs[0])
		u.rem = &r
	}
	return *u.rem
}

type turnKey struct{ session, turn int64 }

type turnAgg struct {
	firstSeq, lastSeq, firstEvent int64
	prompt                        string
	calls, errors                 int64
	success                       sql.NullBool
	duration                      sql.NullInt64
}

type fileKey struct {
	session      int64
	path, action string
}

type fileAgg struct {
	count, firstSeq, lastSeq, firstEvent, lastEvent int64
}

type refKey struct {
	session     int64
	kind, value string
}

type refAgg struct {
	url             string
	firstSeq, event int64
}

type toolKey struct {
	session int64
	name    string
}

// batch indexes one batch of events in tx and moves the mark past it.
func (u *updater) batch(ctx context.Context, tx *sql.Tx, b []store.ScannedEvent) error {
	turns := map[turnKey]*turnAgg{}
	files := map[fileKey]*fileAgg{}
	refs := map[refKey]*refAgg{}
	tools := map[toolKey]*[2]int64{}
	events := map[int64]int64{}
	var order []turnKey
	for i := range b {
		se := &b[i]
		ss, ok, err := u.session(ctx, se.SessionID)
		if err != nil {
			return err
		}
		if !ok {
			continue // its session was deleted during the scan
		}
		if !u.known[se.SessionID] {
			if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, created, worktree, name, day) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT(id) DO NOTHING`, ss.ID, ss.Created, ss.Worktree, ss.Name, dayOf(ss.Created)); err != nil {
				return err
			}
			u.known[se.SessionID] = true
		}
		events[se.SessionID]++
		e := &se.Event
		if e.Kind == codec.KindInit && e.CWD != "" && u.cwd[se.SessionID] == "" {
			u.cwd[se.SessionID] = e.CWD
			if err := indexdb.SetMeta(ctx, tx, fmt.Sprint("cwd", se.SessionID), e.CWD); err != nil {
				return err
			}
		}
		if e.Kind == codec.KindUserMessage {
			u.turn[se.SessionID]++
		}
		k := turnKey{se.SessionID, u.turn[se.SessionID]}
		t := turns[k]
		if t == nil {
			t = &turnAgg{firstSeq: se.Seq, firstEvent: se.ID}
			if e.Kind == codec.KindUserMessage {
				t.prompt = clip(e.Content, 300)
			}
			turns[k] = t
			order = append(order, k)
		}
		t.lastSeq = se.Seq
		switch e.Kind {
		case codec.KindToolCall:
			t.calls++
			tk := toolKey{se.SessionID, e.ToolName}
			if tools[tk] == nil {
				tools[tk] = &[2]int64{}
			}
			tools[tk][0]++
			for _, f := range filesOf(e) {
				fk := fileKey{se.SessionID, RelPath(f.path, append([]string{u.cwd[se.SessionID]}, u.dirs...)...), f.action}
				if a := files[fk]; a != nil {
					a.count, a.lastSeq, a.lastEvent = a.count+1, se.Seq, se.ID
				} else {
					files[fk] = &fileAgg{1, se.Seq, se.Seq, se.ID, se.ID}
				}
			}
		case codec.KindToolResult:
			if e.IsError {
				t.errors++
				tk := toolKey{se.SessionID, e.ToolName}
				if tools[tk] == nil {
					tools[tk] = &[2]int64{}
				}
				tools[tk][1]++
			}
		case codec.KindComplete:
			t.success = sql.NullBool{Bool: e.Success, Valid: true}
			t.duration = sql.NullInt64{Int64: int64(min(e.DurationMS, 1<<62)), Valid: true}
		}
		for _, r := range u.refsOf(e) {
			rk := refKey{se.SessionID, r.Kind, r.Value}
			if refs[rk] == nil {
				refs[rk] = &refAgg{r.URL, se.Seq, se.ID}
			}
		}
	}
	for _, k := range order {
		t := turns[k]
		_, err := tx.ExecContext(ctx, `INSERT INTO turns(session, turn, first_seq, last_seq, first_event, prompt,
			tool_calls, tool_errors, success, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(session, turn) DO UPDATE SET last_seq = excluded.last_seq,
			tool_calls = tool_calls + excluded.tool_calls, tool_errors = tool_errors + excluded.tool_errors,
			success = COALESCE(excluded.success, success), duration_ms = COALESCE(excluded.duration_ms, duration_ms)`,
			k.session, k.turn, t.firstSeq, t.lastSeq, t.firstEvent, t.prompt, t.calls, t.errors, t.success, t.duration)
		if err != nil {
			return err
		}
	}
	for k, f := range files {
		_, err := tx.ExecContext(ctx, `INSERT INTO files(session, path, action, count, first_seq, last_seq, first_event, last_event)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(session, path, action) DO UPDATE SET count = count + excluded.count,
			last_seq = excluded.last_seq, last_event = excluded.last_event`,
			k.session, k.path, k.action, f.count, f.firstSeq, f.lastSeq, f.firstEvent, f.lastEvent)
		if err != nil {
			return err
		}
	}
	for k, r := range refs {
		_, err := tx.ExecContext(ctx, `INSERT INTO refs(session, kind, value, url, first_seq, first_event) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT(session, kind, value) DO NOTHING`, k.session, k.kind, k.value, r.url, r.firstSeq, r.event)
		if err != nil {
			return err
		}
	}
	for k, c := range tools {
		_, err := tx.ExecContext(ctx, `INSERT INTO tools(session, name, calls, errors) VALUES (?, ?, ?, ?)
			ON CONFLICT(session, name) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors`,
			k.session, k.name, c[0], c[1])
		if err != nil {
			return err
		}
	}
	for id, n := range events {
		if _, err := tx.ExecContext(ctx, "UPDATE sessions SET events = events + ?, turns = ? WHERE id = ?", n, u.turn[id], id); err != nil {
			return err
		}
	}
	last := &b[len(b)-1]
	m := markOf(last, u.sessions[last.SessionID].Created)
	for k, v := range map[string]any{"hi": last.ID, "hi_session": m.Session, "hi_seq": m.Seq,
		"hi_kind": m.Kind, "hi_created": m.Created, "hi_hash": m.Hash} {
		if err := indexdb.SetMeta(ctx, tx, k, fmt.Sprint(v)); err != nil {
			return err
		}
	}
	return nil
}

// refsOf finds the refs an event mentions: in prompts and replies, in tool
// calls (commands name branches) and in tool results (git's output names
// commits).
func (u *updater) refsOf(e *codec.Event) []Ref {
	switch e.Kind {
	case codec.KindUserMessage:
		return refsIn(e.Content, false, false, u.remote)
	case codec.KindAssistantText:
		return refsIn(e.Text, false, false, u.remote)
	case codec.KindToolCall:
		if cmd := commandOf(e.Input); cmd != "" {
			return refsIn(cmd, false, true, u.remote)
		}
		return refsIn(string(e.Input), false, false, u.remote)
	case codec.KindToolResult:
		return refsIn(e.Content, true, false, u.remote)
	}
	return nil
}

// clip returns s cut to at most n runes.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
