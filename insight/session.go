package insight

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/store"
)

// TurnUsage is the usage of one turn of a session: the sums of its usage
// rows (CostEstimated: some of the cost is estimated from the price
// table), and the seqs its events span.
type TurnUsage struct {
	Turn              int64
	FirstSeq, LastSeq int64
	store.Tokens
}

// TurnUsages lists the usage of each turn of session that has usage, in
// turn order.
func (x *Index) TurnUsages(ctx context.Context, session int64) ([]TurnUsage, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT u.turn, COALESCE(t.first_seq, 0), COALESCE(t.last_seq, 0),
		SUM(u.input_tokens), SUM(u.output_tokens), SUM(u.cache_read_tokens), SUM(u.cache_write_tokens),
		SUM(u.reasoning_tokens), SUM(u.cost_usd), MAX(u.cost_estimated)
		FROM usage u LEFT JOIN turns t ON t.session = u.session AND t.turn = u.turn
		WHERE u.session = ? GROUP BY u.turn ORDER BY u.turn`, session)
	if err != nil {
		return nil, fmt.Errorf("turn usage of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	var out []TurnUsage
	for rows.Next() {
		var t TurnUsage
		var est int64
		if err := rows.Scan(&t.Turn, &t.FirstSeq, &t.LastSeq, &t.Input, &t.Output, &t.CacheRead, &t.CacheWrite,
			&t.Reasoning, &t.CostUSD, &est); err != nil {
			return nil, fmt.Errorf("turn usage of %s: %w", x.st.Path(), err)
		}
		t.CostEstimated = est != 0
		out = append(out, t)
	}
	return out, rows.Err()
}

// EditRow is one file a session changed (any action but read), with the
// last event that changed it: a row of the Recent Edits view.
type EditRow struct {
	SessionID int64
	Session   string // the session's name
	Worktree  string
	Path      string
	Action    string
	Count     int64
	LastSeq   int64
	LastEvent int64
	// At is about when: the end of the first turn with usage at or after
	// the edit, else the session's creation (TimeFormat UTC).
	At string
}

// RecentEdits lists the files changed in the store's sessions, most
// recent first (by event id, which only grows), at most limit rows.
func (x *Index) RecentEdits(ctx context.Context, limit int) ([]EditRow, error) {
	copied, err := forkCopies(ctx, x.st)
	if err != nil {
		return nil, fmt.Errorf("recent edits of %s: %w", x.st.Path(), err)
	}
	rows, err := x.db.QueryContext(ctx, `SELECT f.session, s.name, s.worktree, f.path, f.action, f.count, f.last_seq, f.last_event,
		COALESCE((SELECT u.at FROM usage u WHERE u.session = f.session AND u.after_seq >= f.last_seq AND u.at <> ''
			ORDER BY u.after_seq LIMIT 1), s.created)
		FROM files f JOIN sessions s ON s.id = f.session WHERE f.action <> ?1
		AND f.last_seq > COALESCE((SELECT c.value FROM json_each(?3) c WHERE c.key = CAST(f.session AS TEXT)), 0)
		ORDER BY f.last_event DESC, f.path, f.action LIMIT ?2`, ActionRead, limit, copied)
	if err != nil {
		return nil, fmt.Errorf("recent edits of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	var out []EditRow
	for rows.Next() {
		var r EditRow
		if err := rows.Scan(&r.SessionID, &r.Session, &r.Worktree, &r.Path, &r.Action, &r.Count, &r.LastSeq, &r.LastEvent, &r.At); err != nil {
			return nil, fmt.Errorf("recent edits of %s: %w", x.st.Path(), err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// forkCopies returns, as a JSON object by session id, how many events
// each fork of st holds copies of (store.ForkLink.Copied): the edits among
// them are its parent's, made when the parent made them.
func forkCopies(ctx context.Context, st *store.Store) (string, error) {
	links, err := st.Forks().All(ctx)
	if err != nil {
		return "", err
	}
	m := make(map[string]int64, len(links))
	for id, l := range links {
		m[strconv.FormatInt(id, 10)] = l.Copied
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// FileChange is one tool call of a session that changed a file: the diffs
// of that file it carries.
type FileChange struct {
	Seq   int64
	Tool  string
	Files []editdiff.File
}

// FileChanges returns, in order, the changes the tool calls of events (one
// session of the store at storePath) made to path, a path as the files
// table holds it (see RelPath). A call that names the file without a diff
// (a Write whose content was not stored) is left out.
func FileChanges(events []store.StoredEvent, storePath, path string) []FileChange {
	dirs := []string{"", worktreeDir(storePath)}
	var out []FileChange
	for _, e := range events {
		if e.Event.Kind == codec.KindInit && dirs[0] == "" {
			dirs[0] = e.Event.CWD
		}
		if e.Event.Kind != codec.KindToolCall {
			continue
		}
		files := editdiff.Files(editdiff.Deref(e.Event.FilePath), e.Event.Input)
		if cmd := commandOf(e.Event.Input); files == nil && cmd != "" {
			if p := editdiff.ShellPatch(cmd); p != "" {
				files = editdiff.ParsePatch(p)
			}
		}
		var keep []editdiff.File
		for _, fl := range files {
			if RelPath(fl.Path, dirs...) == path {
				keep = append(keep, fl)
			}
		}
		if len(keep) > 0 {
			out = append(out, FileChange{Seq: e.Seq, Tool: e.Event.ToolName, Files: keep})
		}
	}
	return out
}
