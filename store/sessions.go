package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/lazuli-app/lazuli/store/listcache"
)

// sessionColumns returns the SELECT list for the sessions table, reading a
// column that a legacy file lacks as NULL (completion) or ” (uuid).
func sessionColumns(info *schemaInfo) string {
	opt := func(col, missing string) string {
		if info.hasColumn("sessions", col) {
			return col
		}
		return missing
	}
	return strings.Join([]string{
		"id", "COALESCE(name, '')", "COALESCE(worktree, '')", "COALESCE(created, '')",
		opt("completed", "NULL"), opt("duration_ms", "NULL"), opt("cost_usd", "NULL"),
		"COALESCE(" + opt("last_claude_uuid", "''") + ", '')",
	}, ", ")
}

// scanSession scans a row selected with sessionColumns.
func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var (
		s         Session
		completed sql.NullInt64
		duration  sql.NullInt64
		cost      sql.NullFloat64
	)
	err := row.Scan(&s.ID, &s.Name, &s.Worktree, &s.Created, &completed, &duration, &cost, &s.LastClaudeUUID)
	if err != nil {
		return Session{}, err
	}
	if completed.Valid {
		done := completed.Int64 != 0 // AZUREAL maps any non-zero to true
		s.Completed = &done
	}
	if duration.Valid {
		s.DurationMS = &duration.Int64
	}
	if cost.Valid {
		s.CostUSD = &cost.Float64
	}
	return s, nil
}

// List returns the sessions of worktree ("" for all) in AZUREAL's
// order: most recent event activity first (the largest events.id), then the
// highest id. Each carries its event, message and since-compaction counts.
// The counts come from an incremental cache, so repeated calls cost about a
// millisecond per thousand sessions. A Store's first call starts from the
// counts saved in Lazuli's cache folder (listcache) once they check out
// against the file; without them it counts the whole events table, on two
// connections.
func (ss SessionService) List(ctx context.Context, worktree string) ([]Session, error) {
	db, info, err := ss.s.reader(ctx)
	if err != nil || db == nil {
		return nil, wrapList(err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, wrapList(classify(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	aggs, err := ss.s.list.Snapshot(ctx, tx, info.hasTable("compactions"), ss.s.helper())
	if err != nil {
		return nil, wrapList(formatOrErr(ss.s.path, err)) // Open does not read every page
	}
	list, err := querySessions(ctx, tx, info, worktree)
	if err != nil {
		return nil, wrapList(formatOrErr(ss.s.path, err))
	}
	if err := ss.addActivity(ctx, tx, info, list); err != nil {
		return nil, wrapList(formatOrErr(ss.s.path, err))
	}
	for i := range list {
		a := aggs[list[i].ID]
		list[i].EventCount, list[i].MessageCount = a.Count, a.Msgs
		list[i].CharsSinceCompaction, list[i].LastEventID = a.Chars, a.MaxID
		list[i].setDamage(a)
	}
	sortList(list)
	return list, nil
}

// sortList puts sessions in AZUREAL's list order: by their last event,
// newest first, then by id.
func sortList(list []Session) {
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].LastEventID != list[j].LastEventID {
			return list[i].LastEventID > list[j].LastEventID
		}
		return list[i].ID > list[j].ID
	})
}

// ListQuick is Sessions().List for a first look at a store: when the
// per-session counts are cached (by this Store, or in the cache file from
// an earlier run), it is Sessions().List and complete is true. Otherwise it
// does not count, and complete is false: EventCount, MessageCount and
// CharsSinceCompaction are -1, and LastEventID, which orders the list, is
// the id of each session's last event by seq, found through the index (the
// largest id, unless a program inserted rows out of order). Counting reads
// every row of the events table, most of a big file; this reads a few index
// pages per session. A window shows this list at once and the complete
// one when Sessions().List returns.
func (ss SessionService) ListQuick(ctx context.Context, worktree string) (_ []Session, complete bool, _ error) {
	db, info, err := ss.s.reader(ctx)
	if err != nil || db == nil {
		return nil, true, wrapList(err)
	}
	list, counted, err := ss.listUncounted(ctx, db, info, worktree)
	if err != nil || counted { // ListSessions reports the error, if it is one
		list, err = ss.List(ctx, worktree)
		return list, true, err
	}
	return list, false, nil
}

// listUncounted is Sessions().ListQuick without counts; counted reports that
// the counts are cached, and then it lists nothing. Its errors only make
// Sessions().ListQuick fall back to Sessions().List.
func (ss SessionService) listUncounted(ctx context.Context, db *sql.DB, info *schemaInfo, worktree string) (_ []Session, counted bool, _ error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, false, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	if ss.s.list.Cached(ctx, tx) {
		return nil, true, nil
	}
	list, err := querySessions(ctx, tx, info, worktree)
	if err != nil {
		return nil, false, err
	}
	if err := ss.addActivity(ctx, tx, info, list); err != nil {
		return nil, false, err
	}
	byID := make(map[int64]*Session, len(list))
	for i := range list {
		list[i].EventCount, list[i].MessageCount, list[i].CharsSinceCompaction = -1, -1, -1
		byID[list[i].ID] = &list[i]
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, (SELECT e.id FROM events AS e INDEXED BY idx_events_session
		WHERE e.session_id = sessions.id ORDER BY e.seq DESC LIMIT 1) FROM sessions`)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var last sql.NullInt64
		if err := rows.Scan(&id, &last); err != nil {
			return nil, false, err
		}
		if sess := byID[id]; sess != nil {
			sess.LastEventID = last.Int64
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	sortList(list)
	return list, false, nil
}

func wrapList(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("list sessions: %w", err)
}

// querySessions reads the session rows of worktree ("" for all).
func querySessions(ctx context.Context, q querier, info *schemaInfo, worktree string) ([]Session, error) {
	query := "SELECT " + sessionColumns(info) + " FROM sessions"
	var args []any
	if worktree != "" {
		query += " WHERE worktree = ?"
		args = append(args, worktree)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, sess)
	}
	return list, rows.Err()
}

// Get returns one session with its counts, or ErrNotFound.
func (ss SessionService) Get(ctx context.Context, id int64) (Session, error) {
	sess, err := ss.get(ctx, id)
	if err != nil {
		return Session{}, fmt.Errorf("get session %d: %w", id, err)
	}
	return sess, nil
}

func (ss SessionService) get(ctx context.Context, id int64) (Session, error) {
	db, info, err := ss.s.reader(ctx)
	if err != nil {
		return Session{}, err
	}
	if db == nil {
		return Session{}, ErrNotFound
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Session{}, classify(err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	sess, err := scanSession(tx.QueryRowContext(ctx, "SELECT "+sessionColumns(info)+" FROM sessions WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNotFound
	}
	if err != nil {
		return Session{}, classify(err)
	}
	if a, ok, err := ss.s.list.Session(ctx, tx, info.hasTable("compactions"), id); err != nil {
		return Session{}, classify(err)
	} else if ok {
		sess.EventCount, sess.MessageCount = a.Count, a.Msgs
		sess.CharsSinceCompaction, sess.LastEventID = a.Chars, a.MaxID
		sess.setDamage(a)
	} else if err := countSession(ctx, tx, info, &sess); err != nil {
		return sess, classify(err)
	}
	one := []Session{sess}
	err = ss.addActivity(ctx, tx, info, one)
	return one[0], classify(err)
}

// countSession counts sess's events: what Get reports when the list's
// counts are not at hand. It reads every row of the session, and for
// char_len, stored after the event's data, the data's overflow pages too.
func countSession(ctx context.Context, tx *sql.Tx, info *schemaInfo, sess *Session) error {
	var a listcache.Agg
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(kind IN ('UserMessage', 'AssistantText')), 0),
		COALESCE(MAX(id), 0), COALESCE(SUM(typeof(seq) != 'integer'), 0) FROM events WHERE session_id = ?`, sess.ID).
		Scan(&sess.EventCount, &sess.MessageCount, &sess.LastEventID, &a.BadSeqs)
	if err != nil {
		return err
	}
	sess.CharsSinceCompaction, a.Overflow, err = charsSince(ctx, tx, info, sess.ID)
	sess.setDamage(a)
	return err
}

// Create adds a session to worktree (the git branch) and returns it.
// An empty name means the default display name S{id}, stored as ” like
// AZUREAL does. The first Sessions().Create creates the store file.
func (ss SessionService) Create(ctx context.Context, worktree, name string) (Session, error) {
	var id int64
	err := ss.s.writeTx(ctx, true, func(tx *sql.Tx) error {
		query, args := "INSERT INTO sessions(worktree) VALUES (?)", []any{worktree}
		if name != "" {
			query, args = "INSERT INTO sessions(worktree, name) VALUES (?, ?)", []any{worktree, name}
		}
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("create session in %q: %w", worktree, err)
	}
	return ss.Get(ctx, id)
}

// Rename sets a session's name; "" restores the default S{id}.
func (ss SessionService) Rename(ctx context.Context, id int64, name string) error {
	err := ss.update(ctx, id, "UPDATE sessions SET name = ? WHERE id = ?", name, id)
	if err != nil {
		return fmt.Errorf("rename session %d: %w", id, err)
	}
	return nil
}

// RenameWorktree moves every session of worktree oldName to newName, as
// AZUREAL does when a branch is renamed, and returns how many moved.
//
// Lazuli's commands never rename a worktree: RenameWorktree is AZUREAL's
// rename_worktree, kept so that the store's API matches AZUREAL's, and
// only tests call it.
func (ss SessionService) RenameWorktree(ctx context.Context, oldName, newName string) (int64, error) {
	var n int64
	err := ss.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE sessions SET worktree = ? WHERE worktree = ?", newName, oldName)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if errors.Is(err, errNoStore) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("rename worktree %q to %q: %w", oldName, newName, err)
	}
	return n, nil
}

// SetLastClaudeUUID records the agent CLI's own session id for a running
// turn ("" clears it), as AZUREAL does for orphan recovery (spec §3.4).
func (ss SessionService) SetLastClaudeUUID(ctx context.Context, id int64, uuid string) error {
	err := ss.update(ctx, id, "UPDATE sessions SET last_claude_uuid = ? WHERE id = ?", uuid, id)
	if err != nil {
		return fmt.Errorf("set agent session id of session %d: %w", id, err)
	}
	return nil
}

// update runs an UPDATE of one session row, ErrNotFound if none.
func (ss SessionService) update(ctx context.Context, id int64, query string, args ...any) error {
	err := ss.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		return requireRow(res)
	})
	if errors.Is(err, errNoStore) {
		return ErrNotFound
	}
	return err
}

// requireRow turns an UPDATE or DELETE that matched nothing into ErrNotFound.
func requireRow(res sql.Result) error {
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// Delete deletes a session with its events and compactions (ON
// DELETE CASCADE, with foreign_keys on). Because AZUREAL reuses session ids,
// leftovers would attach to the next session; the delete fails rather than
// leave any. Unlike AZUREAL it does not VACUUM.
func (ss SessionService) Delete(ctx context.Context, id int64) error {
	ss.s.list.Lock() // keep the list cache in step with the delete
	defer ss.s.list.Unlock()
	err := ss.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		return ss.s.list.Deleting(ctx, tx, id, func() error {
			res, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id)
			if err != nil {
				return err
			}
			if err := requireRow(res); err != nil {
				return err
			}
			return checkNoOrphans(ctx, tx, id)
		})
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("delete session %d: %w", id, err)
	}
	ss.s.events.forget(id)
	return nil
}

// checkNoOrphans fails if rows of session id survived its deletion.
func checkNoOrphans(ctx context.Context, tx *sql.Tx, id int64) error {
	var n int64
	err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM events WHERE session_id = ?1)
		+ (SELECT COUNT(*) FROM compactions WHERE session_id = ?1)`, id).Scan(&n)
	if err == nil && n > 0 {
		err = fmt.Errorf("%d events or compactions were not deleted with the session", n)
	}
	return err
}

// Names maps every session id to its display name (name, or S{id}).
//
// Test support: no command lists names alone; tests use Names to read
// back what a rename or an import wrote.
func (ss SessionService) Names(ctx context.Context) (map[int64]string, error) {
	names := map[int64]string{}
	db, _, err := ss.s.reader(ctx)
	if err != nil || db == nil {
		return names, wrapNames(err)
	}
	rows, err := db.QueryContext(ctx, "SELECT id, COALESCE(name, '') FROM sessions")
	if err != nil {
		return nil, wrapNames(classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			name string
		)
		if err := rows.Scan(&id, &name); err != nil {
			return nil, wrapNames(err)
		}
		names[id] = DisplayName(id, name)
	}
	return names, wrapNames(classify(rows.Err()))
}

func wrapNames(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read session names: %w", err)
}
