package indexdb

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestMetaStaleAndRemove: meta round-trips in a transaction; sessions the
// store no longer has, or whose id names another session now, are stale;
// Remove deletes the file and its logs.
func TestMetaStaleAndRemove(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	err = WriteTx(ctx, db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE meta(key TEXT PRIMARY KEY, value);
			CREATE TABLE sessions(id INTEGER PRIMARY KEY, created TEXT NOT NULL);
			INSERT INTO sessions VALUES (1, 'a'), (2, 'b'), (3, 'c')`); err != nil {
			return err
		}
		if err := SetMeta(ctx, tx, "k", "v1"); err != nil {
			return err
		}
		return SetMeta(ctx, tx, "k", "v2")
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := GetMeta(ctx, db, "k"); err != nil || v != "v2" {
		t.Errorf("meta k = %q, %v", v, err)
	}
	boom := errors.New("boom")
	if err := WriteTx(ctx, db, func(tx *sql.Tx) error { _ = SetMeta(ctx, tx, "k", "v3"); return boom }); !errors.Is(err, boom) {
		t.Errorf("WriteTx = %v", err)
	}
	if v, _ := GetMeta(ctx, db, "k"); v != "v2" {
		t.Errorf("a failed transaction was kept: k = %q", v)
	}
	live := map[int64]string{1: "a", 2: "b2"} // 2 reused, 3 deleted
	gone, err := StaleSessions(ctx, db, func(id int64) (string, bool) { c, ok := live[id]; return c, ok })
	if err != nil || !reflect.DeepEqual(gone, []int64{2, 3}) {
		t.Errorf("stale = %v, %v", gone, err)
	}
	if list, args := InList([]int64{4, 5}); list != "(?, ?)" || !reflect.DeepEqual(args, []any{int64(4), int64(5)}) {
		t.Errorf("InList = %q %v", list, args)
	}
	db.Close()
	if err := os.WriteFile(path+"-shm", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"", "-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + s); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", path+s, err)
		}
	}
}

// TestIsDamaged: a file that is not a database is damaged; other errors
// are not.
func TestIsDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(path, []byte("this is not an SQLite database, just text long enough to be read as a header"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", DSN(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = GetMeta(context.Background(), db, "k")
	if !IsDamaged(err) {
		t.Errorf("IsDamaged(%v) = false", err)
	}
	if IsDamaged(errors.New("other")) || IsDamaged(sql.ErrNoRows) {
		t.Error("a plain error counts as damage")
	}
}

// TestPathMakeDirOpen: an index file's path is key.db in its folder of the
// cache folder; MakeDir creates that folder private (0700) and passes an
// error through; Open leaves the file private (0600) with what prepare
// made, and returns prepare's error.
func TestPathMakeDirOpen(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	path, err := MakeDir(Path(func() (string, error) { return cache, nil }, "index", "k1"))
	if want := filepath.Join(cache, "index", "k1.db"); err != nil || path != want {
		t.Fatalf("MakeDir(Path(…)) = %q, %v, want %q", path, err, want)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("Stat(folder) = %v, want a folder of mode 0700 (%v)", err, fi.Mode())
	}
	noCache := errors.New("no cache folder")
	if p, err := MakeDir(Path(func() (string, error) { return "", noCache }, "index", "k1")); !errors.Is(err, noCache) || p != "" {
		t.Errorf("MakeDir(Path(failing)) = %q, %v, want %v", p, err, noCache)
	}
	db, err := Open(ctx, path, func(ctx context.Context, db *sql.DB) error {
		_, err := db.ExecContext(ctx, "CREATE TABLE meta(key TEXT PRIMARY KEY, value)")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GetMeta(ctx, db, "format"); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("GetMeta after Open = %v, want sql.ErrNoRows from the table prepare made", err)
	}
	db.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("Stat(index) = %v, want a file of mode 0600 (%v)", err, fi.Mode())
	}
	bad := errors.New("another format")
	if db, err := Open(ctx, path, func(context.Context, *sql.DB) error { return bad }); !errors.Is(err, bad) || db != nil {
		t.Errorf("Open with a failing prepare = %v, %v, want nil, %v", db, err, bad)
	}
}

// TestFileURI: a Windows drive path (in the forward-slash form
// filepath.ToSlash gives there) stays in the URI's path.
func TestFileURI(t *testing.T) {
	q := url.Values{"mode": {"ro"}}
	for _, tt := range []struct{ path, want string }{
		{"/home/me/.cache/x.idx", "file:///home/me/.cache/x.idx?mode=ro"},
		{"C:/Users/me/AppData/Local/x.idx", "file:///C:/Users/me/AppData/Local/x.idx?mode=ro"},
	} {
		if got := fileURI(tt.path, q); got != tt.want {
			t.Errorf("fileURI(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}
