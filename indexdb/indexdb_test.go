package indexdb

import (
	"context"
	"database/sql"
	"errors"
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
