package store

import (
	"database/sql"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// checksBeforeWrite opens the store at path, writes to it and returns how
// many times the Store ran quick_check before that write.
func checksBeforeWrite(t *testing.T, path string) int {
	t.Helper()
	s := mustOpenPath(t, path)
	mustAppend(t, s, 1, codec.UserMessage("again"))
	checks := s.checks
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return checks
}

// foreignWrite commits a write to the store at path as another program
// would: through SQLite, without a Store.
func foreignWrite(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("INSERT INTO sessions(worktree, name, created) VALUES ('main', 'other', '2026-01-01T00:00:00Z')"); err != nil {
		t.Fatal(err)
	}
}

// TestVerifiedMark checks when a Store's first write skips quick_check: only
// when the file is the one an earlier check found healthy, or that file as
// Lazuli's own commits left it; never after another program's write, even
// one between the check and a Store's next commit.
func TestVerifiedMark(t *testing.T) {
	tests := []struct {
		name    string
		between func(t *testing.T, path string)
		want    int // checks before the next Store's first write
	}{
		{"OK", func(*testing.T, string) {}, 0},
		{"ForeignWrite", foreignWrite, 1},
		{"ForeignWriteBeforeOwnCommit", func(t *testing.T, path string) {
			s := mustOpenPath(t, path)
			mustAppend(t, s, 1, codec.UserMessage("checked")) // the mark: the file as s found it
			foreignWrite(t, path)
			mustAppend(t, s, 1, codec.UserMessage("on top of the other write"))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"OwnCommits", func(t *testing.T, path string) {
			s := mustOpenPath(t, path)
			for range 3 {
				mustAppend(t, s, 1, codec.UserMessage("more"))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := newStoreFile(t) // written by a Store, so marked
			tt.between(t, path)
			if got := checksBeforeWrite(t, path); got != tt.want {
				t.Errorf("checks before the first write = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestVerifiedMarkWithoutCache checks that a Store without a cache folder
// checks before every first write.
func TestVerifiedMarkWithoutCache(t *testing.T) {
	path := newStoreFile(t)
	t.Setenv(CacheDirEnv, "")
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	if got := checksBeforeWrite(t, path); got != 1 {
		t.Errorf("checks before the first write = %d, want 1", got)
	}
}
