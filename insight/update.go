package insight

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"time"

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
