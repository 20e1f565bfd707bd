package insight

import (
	"context"
	"fmt"
)

// PathEdits lists the changes (any action but read) sessions made to the
// file path names, newest first, as RecentEdits does for every file: a
// row's path is path itself, or one of the two ends with the other after
// a slash (an agent may name a file by its absolute path or by its last
// elements). A fork's copies of its parent's changes are left out. It
// reads the files table once, without a per-row subquery for the rows
// that do not match.
func (x *Index) PathEdits(ctx context.Context, path string, limit int) ([]EditRow, error) {
	copied, err := forkCopies(ctx, x.st)
	if err != nil {
		return nil, fmt.Errorf("edits of %s in %s: %w", path, x.st.Path(), err)
	}
	rows, err := x.db.QueryContext(ctx, `WITH m AS (SELECT * FROM files f WHERE f.action <> ?1
			AND (f.path = ?2 OR substr(?2, -length(f.path) - 1) = '/' || f.path OR substr(f.path, -length(?2) - 1) = '/' || ?2))
		SELECT m.session, s.name, s.worktree, m.path, m.action, m.count, m.last_seq, m.last_event,
		COALESCE((SELECT u.at FROM usage u WHERE u.session = m.session AND u.after_seq >= m.last_seq AND u.at <> ''
			ORDER BY u.after_seq LIMIT 1), s.created)
		FROM m JOIN sessions s ON s.id = m.session
		WHERE m.last_seq > COALESCE((SELECT c.value FROM json_each(?3) c WHERE c.key = CAST(m.session AS TEXT)), 0)
		ORDER BY m.last_event DESC, m.path, m.action LIMIT ?4`, ActionRead, path, copied, limit)
	if err != nil {
		return nil, fmt.Errorf("edits of %s in %s: %w", path, x.st.Path(), err)
	}
	defer rows.Close()
	var out []EditRow
	for rows.Next() {
		var r EditRow
		if err := rows.Scan(&r.SessionID, &r.Session, &r.Worktree, &r.Path, &r.Action, &r.Count, &r.LastSeq, &r.LastEvent, &r.At); err != nil {
			return nil, fmt.Errorf("edits of %s in %s: %w", path, x.st.Path(), err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
