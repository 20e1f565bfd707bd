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
func (fs FileService) RecentEdits(ctx context.Context, limit int) ([]EditRow, error) {
	copied, err := forkCopies(ctx, fs.x.st)
	if err != nil {
		return nil, fmt.Errorf("recent edits of %s: %w", fs.x.st.Path(), err)
	}
	rows, err := fs.x.db.QueryContext(ctx, `SELECT f.session, s.name, s.worktree, f.path, f.action, f.count, f.last_seq, f.last_event,
		COALESCE((SELECT u.at FROM usage u WHERE u.session = f.session AND u.after_seq >= f.last_seq AND u.at <> ''
			ORDER BY u.after_seq LIMIT 1), s.created)
		FROM files f JOIN sessions s ON s.id = f.session WHERE f.action <> ?1
		AND f.last_seq > COALESCE((SELECT c.value FROM json_each(?3) c WHERE c.key = CAST(f.session AS TEXT)), 0)
		ORDER BY f.last_event DESC, f.path, f.action LIMIT ?2`, ActionRead, limit, copied)
	if err != nil {
		return nil, fmt.Errorf("recent edits of %s: %w", fs.x.st.Path(), err)
	}
	defer rows.Close()
	var out []EditRow
	for rows.Next() {
		var r EditRow
		if err := rows.Scan(&r.SessionID, &r.Session, &r.Worktree, &r.Path, &r.Action, &r.Count, &r.LastSeq, &r.LastEvent, &r.At); err != nil {
			return nil, fmt.Errorf("recent edits of %s: %w", fs.x.st.Path(), err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Edits lists the changes (any action but read) sessions made to the
// file path names, newest first, as RecentEdits does for every file: a
// row's path is path itself, or one of the two ends with the other after
// a slash (an agent may name a file by its absolute path or by its last
// elements). A fork's copies of its parent's changes are left out. It
// reads the files table once, without a per-row subquery for the rows
// that do not match.
func (fs FileService) Edits(ctx context.Context, path string, limit int) ([]EditRow, error) {
	copied, err := forkCopies(ctx, fs.x.st)
	if err != nil {
		return nil, fmt.Errorf("edits of %s in %s: %w", path, fs.x.st.Path(), err)
	}
	rows, err := fs.x.db.QueryContext(ctx, `WITH m AS (SELECT * FROM files f WHERE f.action <> ?1
			AND (f.path = ?2 OR substr(?2, -length(f.path) - 1) = '/' || f.path OR substr(f.path, -length(?2) - 1) = '/' || ?2))
		SELECT m.session, s.name, s.worktree, m.path, m.action, m.count, m.last_seq, m.last_event,
		COALESCE((SELECT u.at FROM usage u WHERE u.session = m.session AND u.after_seq >= m.last_seq AND u.at <> ''
			ORDER BY u.after_seq LIMIT 1), s.created)
		FROM m JOIN sessions s ON s.id = m.session
		WHERE m.last_seq > COALESCE((SELECT c.value FROM json_each(?3) c WHERE c.key = CAST(m.session AS TEXT)), 0)
		ORDER BY m.last_event DESC, m.path, m.action LIMIT ?4`, ActionRead, path, copied, limit)
	if err != nil {
		return nil, fmt.Errorf("edits of %s in %s: %w", path, fs.x.st.Path(), err)
	}
	defer rows.Close()
	var out []EditRow
	for rows.Next() {
		var r EditRow
		if err := rows.Scan(&r.SessionID, &r.Session, &r.Worktree, &r.Path, &r.Action, &r.Count, &r.LastSeq, &r.LastEvent, &r.At); err != nil {
			return nil, fmt.Errorf("edits of %s in %s: %w", path, fs.x.st.Path(), err)
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
