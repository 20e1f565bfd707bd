package insight

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

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
