package store

// This file remembers, across processes, that a store file passed
// PRAGMA quick_check, so that a short-lived process (import-native adding
// ten lines, a CLI command that writes one row) does not read the whole
// file again before its first write: quick_check costs about 0.2 s on a
// 140 MB store, more than everything else such a process does.
//
// The mark is the file as it was checked, or as this Store's own commit
// left it after a check: its device, inode, size and modification time,
// and its header's change counter. A later Store that finds the file with
// exactly that mark skips the check; anything else (another program's
// write, a copy over it, an edit in place, a journal beside it, WAL mode)
// runs it again. A commit carries the mark forward only when the change
// counter went up by exactly one since the mark: no other program
// committed in between. The mark lives in the cache folder
// (verified/<CacheKey>); losing it costs one check.

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lazuli-app/lazuli/store/listcache"
)

// verifiedMark is a store file as quick_check found it healthy.
type verifiedMark struct {
	ID    fileID
	Stamp listcache.Stamp
}

// markFormat is the text of a mark file, with its version.
const markFormat = "verified-v1 %d %d %d %d %d %d\n"

// markPath is where the mark of the store at path is kept; "" without a
// cache folder.
func markPath(path string) string {
	dir, err := CacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "verified", CacheKey(path))
}

// currentMark reads the mark of the file at path as it is now, in a read
// transaction on db so that no commit falls between its header and its
// stat. ok is false when a mark cannot vouch for the file: the header's
// counter is not kept (WAL mode, a stale size), a journal or WAL file lies
// beside it, or it cannot be read.
func currentMark(ctx context.Context, db *sql.DB, path string) (m verifiedMark, ok bool) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return m, false
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	var h [100]byte
	if headerPage(ctx, tx, &h) != nil { // takes the shared lock: no commit until Rollback
		return m, false
	}
	m.Stamp = listcache.StampOf(&h)
	if !m.Stamp.Trusted || fileExists(path+"-journal") || fileExists(path+"-wal") {
		return m, false
	}
	m.ID, ok = fileIDOf(path)
	return m, ok
}

// loadMark reads the mark kept for the store at path.
func loadMark(path string) (verifiedMark, bool) {
	p := markPath(path)
	if p == "" {
		return verifiedMark{}, false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return verifiedMark{}, false
	}
	var m verifiedMark
	_, err = fmt.Sscanf(string(data), markFormat, &m.ID.Dev, &m.ID.Ino, &m.ID.Size, &m.ID.MTime, &m.Stamp.Counter, &m.Stamp.Pages)
	m.Stamp.Trusted = true
	return m, err == nil
}

// saveMark keeps m as the mark of the store at path, through a temporary
// file and a rename. Failing costs the next process a check, nothing else,
// so errors are dropped.
func saveMark(path string, m verifiedMark) {
	p := markPath(path)
	if p == "" || os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".mark-*")
	if err != nil {
		return
	}
	_, werr := fmt.Fprintf(tmp, markFormat, m.ID.Dev, m.ID.Ino, m.ID.Size, m.ID.MTime, m.Stamp.Counter, m.Stamp.Pages)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name()) //nolint:errcheck // best effort: a cache
	}
}

// markedHealthy reports whether the file at path is, right now, the file
// a mark says quick_check found healthy; cur is its current mark (ok
// false when it has none).
func markedHealthy(ctx context.Context, db *sql.DB, path string) (cur verifiedMark, ok, healthy bool) {
	cur, ok = currentMark(ctx, db, path)
	if !ok {
		return cur, false, false
	}
	kept, found := loadMark(path)
	return cur, true, found && kept == cur
}
