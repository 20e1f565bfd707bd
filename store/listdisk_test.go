package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store/listcache"
)

// useCacheDir points Stores opened from now on to dir for their caches.
func useCacheDir(t *testing.T, dir string) {
	t.Helper()
	t.Setenv(CacheDirEnv, dir)
}

// listFile returns the list cache file of the store at path.
func listFile(t *testing.T, path string) string {
	t.Helper()
	dir, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "list", CacheKey(path)+".list")
}

// listWith opens the store at path, lists its sessions once, closes it
// (which waits for the cache file to be written) and returns the list and
// how many full counts the Store made.
func listWith(t *testing.T, path string, open func(context.Context, string, ...Option) (*Store, error)) ([]Session, int) {
	t.Helper()
	s, err := open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.Sessions().List(context.Background(), "")
	if err != nil {
		t.Fatalf("ListSessions() = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return list, s.list.Counted()
}

// listFresh lists the store at path like a first run: with an empty cache.
func listFresh(t *testing.T, path string) []Session {
	t.Helper()
	prev, _ := os.LookupEnv(CacheDirEnv)
	useCacheDir(t, t.TempDir())
	list, counted := listWith(t, path, Open)
	if counted != 1 {
		t.Fatalf("a store with an empty cache counted %d times, want once", counted)
	}
	useCacheDir(t, prev)
	return list
}

// fillListStore creates sessions with events and compactions in s.
func fillListStore(t *testing.T, s *Store, seed uint64, sessions int) {
	t.Helper()
	ctx := context.Background()
	gen := newBenchGen(seed)
	for i := range sessions {
		sess := mustCreateSession(t, s, []string{"main", "feature"}[i%2], "")
		if i%4 != 3 {
			mustAppend(t, s, sess.ID, gen.events(1+gen.r.IntN(40))...)
		}
		if i%3 == 0 {
			if _, err := s.Compactions().Add(ctx, sess.ID, int64(1+gen.r.IntN(20)), "summary"); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestListCacheReadsCharLenAsLoads: the counts add up char_len as a load
// reads it, or a session's list entry and its load would disagree.
func TestListCacheReadsCharLenAsLoads(t *testing.T) {
	if listcache.CharLenColumn != charLenColumn {
		t.Errorf("listcache.CharLenColumn = %q, want charLenColumn %q", listcache.CharLenColumn, charLenColumn)
	}
}

// TestListCacheHit checks that a Store's first list uses the counts a
// previous Store saved, without counting, and reports what a full count does.
func TestListCacheHit(t *testing.T) {
	useCacheDir(t, t.TempDir())
	s := mustOpen(t)
	fillListStore(t, s, 11, 12)
	s.Close()
	first, counted := listWith(t, s.Path(), Open)
	if counted != 1 {
		t.Fatalf("first list ever: %d full counts, want 1", counted)
	}
	if _, err := os.Stat(listFile(t, s.Path())); err != nil {
		t.Fatalf("no cache file after a full count: %v", err)
	}
	for name, open := range map[string]func(context.Context, string, ...Option) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		again, counted := listWith(t, s.Path(), open)
		if counted != 0 {
			t.Errorf("%s: list of an unchanged store counted %d times, want 0 (the cache file)", name, counted)
		}
		if !reflect.DeepEqual(again, first) {
			t.Errorf("%s: list from the cache file differs from the full count:\n%+v\n%+v", name, again, first)
		}
	}
	if want := listFresh(t, s.Path()); !reflect.DeepEqual(first, want) {
		t.Errorf("lists differ from a full count:\n%+v\n%+v", first, want)
	}
}

// TestListCacheFollowsChanges changes the store behind the cache file's
// back, as another Store or another program does, and checks that the next
// first list reports what a full count does, counting only when it must.
func TestListCacheFollowsChanges(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		change func(t *testing.T, other *Store)
		counts bool // a full count is expected
	}{
		{"Nothing", func(*testing.T, *Store) {}, false},
		{"Append", func(t *testing.T, o *Store) {
			mustAppend(t, o, 1, newBenchGen(5).events(30)...)
			mustAppend(t, o, 4, codec.UserMessage("more"), codec.AssistantText("reply"))
		}, false},
		{"NewSession", func(t *testing.T, o *Store) {
			sess := mustCreateSession(t, o, "main", "new")
			mustAppend(t, o, sess.ID, newBenchGen(6).events(20)...)
		}, false},
		{"Compaction", func(t *testing.T, o *Store) {
			if _, err := o.Compactions().Add(ctx, 2, 5, "later"); err != nil {
				t.Fatal(err)
			}
			if _, err := o.Compactions().Add(ctx, 5, 3, "first"); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"Rename", func(t *testing.T, o *Store) {
			if err := o.Sessions().Rename(ctx, 3, "renamed"); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"Delete", func(t *testing.T, o *Store) {
			if err := o.Sessions().Delete(ctx, 6); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"DeleteEmpty", func(t *testing.T, o *Store) { // session 4 has no events
			if err := o.Sessions().Delete(ctx, 4); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"DeleteLastAndReuseItsID", func(t *testing.T, o *Store) {
			if err := o.Sessions().Delete(ctx, 10); err != nil {
				t.Fatal(err)
			}
			sess := mustCreateSession(t, o, "main", "")
			if sess.ID != 10 {
				t.Fatalf("new session id = %d, want 10 (reused)", sess.ID)
			}
			mustAppend(t, o, sess.ID, newBenchGen(7).events(int(sess.ID))...)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useCacheDir(t, t.TempDir())
			s := mustOpen(t)
			fillListStore(t, s, 12, 10)
			if _, err := s.Sessions().List(ctx, ""); err != nil { // saves the counts
				t.Fatal(err)
			}
			s.Close()
			saved, err := os.ReadFile(listFile(t, s.Path()))
			if err != nil {
				t.Fatal(err)
			}
			tt.change(t, mustOpenPath(t, s.Path()))
			got, counted := listWith(t, s.Path(), Open)
			if want := listFresh(t, s.Path()); !reflect.DeepEqual(got, want) {
				t.Fatalf("list after the change differs from a full count:\n%+v\n%+v", got, want)
			}
			if (counted > 0) != tt.counts {
				t.Errorf("full counts = %d, want a full count %v", counted, tt.counts)
			}
			if now, _ := os.ReadFile(listFile(t, s.Path())); tt.counts && bytes.Equal(now, saved) {
				t.Error("the cache file was not rewritten after a full count")
			}
		})
	}
}

// TestListCacheOtherFile puts another store at the same path: its counts
// must come from a full count, never from the first store's cache file.
func TestListCacheOtherFile(t *testing.T) {
	useCacheDir(t, t.TempDir())
	dir := t.TempDir()
	a, b := mustOpenPath(t, filepath.Join(dir, "a.azs")), mustOpenPath(t, filepath.Join(dir, "b.azs"))
	fillListStore(t, a, 21, 8)
	fillListStore(t, b, 22, 8)
	a.Close()
	b.Close()
	path := filepath.Join(dir, "sessions.azs")
	copyFile(t, a.Path(), path)
	if _, counted := listWith(t, path, Open); counted != 1 {
		t.Fatalf("first list counted %d times", counted)
	}
	copyFile(t, b.Path(), path)
	got, counted := listWith(t, path, Open)
	if want := listFresh(t, path); !reflect.DeepEqual(got, want) || counted != 1 {
		t.Fatalf("list of the replacing store (%d full counts):\n%+v\nwant\n%+v", counted, got, want)
	}
}

// TestListCacheSameStamp replaces the file with a copy that had the same
// number of writes since the copy was made, so that SQLite's change counter
// and page count match the cache file's: the rows tell them apart.
func TestListCacheSameStamp(t *testing.T) {
	useCacheDir(t, t.TempDir())
	dir := t.TempDir()
	a := mustOpenPath(t, filepath.Join(dir, "a.azs"))
	fillListStore(t, a, 23, 6)
	a.Close()
	b := filepath.Join(dir, "b.azs")
	copyFile(t, a.Path(), b)
	mustAppend(t, mustOpenPath(t, a.Path()), 1, codec.UserMessage("in a"))
	mustAppend(t, mustOpenPath(t, b), 2, codec.AssistantText("in b, longer"))
	path := filepath.Join(dir, "sessions.azs")
	copyFile(t, a.Path(), path)
	listWith(t, path, Open)
	saved := fileStampOf(t, path) // as the cache file records it
	copyFile(t, b, path)
	if stamp := fileStampOf(t, path); !stamp.Same(saved) {
		t.Fatalf("stamps differ (%+v, %+v): the test does not test what it should", stamp, saved)
	}
	got, counted := listWith(t, path, Open)
	if want := listFresh(t, path); !reflect.DeepEqual(got, want) || counted != 1 {
		t.Fatalf("list of the replacing store (%d full counts):\n%+v\nwant\n%+v", counted, got, want)
	}
}

func fileStampOf(t *testing.T, path string) listcache.Stamp {
	t.Helper()
	s, err := OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, _, err := s.reader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var h dbHeader
	if err := headerPage(context.Background(), db, &h.b); err != nil {
		t.Fatal(err)
	}
	return listcache.StampOf(&h.b)
}

// TestListCacheBadFile checks that a damaged, truncated or foreign cache
// file is ignored, and replaced by the full count's.
func TestListCacheBadFile(t *testing.T) {
	useCacheDir(t, t.TempDir())
	s := mustOpen(t)
	fillListStore(t, s, 31, 5)
	s.Close()
	want, _ := listWith(t, s.Path(), Open)
	file := listFile(t, s.Path())
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x10
	newer := append(bytes.Clone(good[:bytes.IndexByte(good, '\n')+1]), 2) // the magic string, version 2, nothing more
	tests := map[string][]byte{
		"Empty":     {},
		"Garbage":   []byte("not a list cache at all, but long enough to look like one"),
		"Truncated": good[:len(good)-9],
		"BitFlip":   flipped,
		"Version":   newer,
		"Longer":    append(bytes.Clone(good), 0),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			writeFile(t, file, data)
			got, counted := listWith(t, s.Path(), Open)
			if !reflect.DeepEqual(got, want) || counted != 1 {
				t.Fatalf("list with a bad cache file (%d full counts) = %+v, want %+v", counted, got, want)
			}
			if now, _ := os.ReadFile(file); !bytes.Equal(now, good) {
				t.Error("the bad cache file was not replaced")
			}
		})
	}
}

// TestListCacheUnwritable lists with a cache folder that cannot be made:
// lists work, they just count every time.
func TestListCacheUnwritable(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	writeFile(t, blocker, []byte("x"))
	useCacheDir(t, filepath.Join(blocker, "cache"))
	s := mustOpen(t)
	fillListStore(t, s, 41, 4)
	want := listFresh(t, s.Path())
	for range 2 {
		got, counted := listWith(t, s.Path(), Open)
		if !reflect.DeepEqual(got, want) || counted != 1 {
			t.Fatalf("list without a cache folder (%d full counts) = %+v, want %+v", counted, got, want)
		}
	}
}

// TestListCacheKeepsStoreUnchanged checks that a read-only Store saves the
// counts while the store file stays byte for byte as it was.
func TestListCacheKeepsStoreUnchanged(t *testing.T) {
	useCacheDir(t, t.TempDir())
	s := mustOpen(t)
	fillListStore(t, s, 51, 4)
	s.Close()
	before, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, counted := listWith(t, s.Path(), OpenReadOnly); counted != 1 {
		t.Fatalf("full counts = %d, want 1", counted)
	}
	st, err := os.Stat(listFile(t, s.Path()))
	if err != nil {
		t.Fatalf("a read-only store saved no counts: %v", err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode = %v, want 0600", st.Mode().Perm())
	}
	if dir, _ := os.Stat(filepath.Dir(listFile(t, s.Path()))); dir.Mode().Perm() != 0o700 {
		t.Errorf("cache folder mode = %v, want 0700", dir.Mode().Perm())
	}
	if after, _ := os.ReadFile(s.Path()); !bytes.Equal(before, after) {
		t.Error("listing with a read-only Store changed the store file")
	}
}

// TestListCacheSavePolicy checks when a Store rewrites the cache file: after
// a full count, after refreshes only once enough rows were folded in and
// not too soon after the last save, and at the next list after a delete.
func TestListCacheSavePolicy(t *testing.T) {
	ctx := context.Background()
	useCacheDir(t, t.TempDir())
	s := mustOpen(t)
	fillListStore(t, s, 61, 6)
	writer := mustOpenPath(t, s.Path())
	file := listFile(t, s.Path())
	saved := func() []byte {
		t.Helper()
		if _, err := s.Sessions().List(ctx, ""); err != nil {
			t.Fatal(err)
		}
		s.list.Wait()
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	first := saved()
	mustAppend(t, writer, 1, newBenchGen(62).events(10)...)
	if now := saved(); !bytes.Equal(now, first) {
		t.Error("a refresh of 10 rows rewrote the cache file")
	}
	mustAppend(t, writer, 2, newBenchGen(63).events(listcache.SaveRows)...)
	s.list.MarkSaved(time.Now()) // however long the appends took on a busy machine
	if now := saved(); !bytes.Equal(now, first) {
		t.Errorf("a refresh rewrote the cache file less than %v after the last save", listcache.SaveEvery)
	}
	s.list.MarkSaved(time.Now().Add(-listcache.SaveEvery))
	second := saved()
	if bytes.Equal(second, first) {
		t.Fatalf("a refresh of %d rows, %v after the last save, did not rewrite the cache file", listcache.SaveRows+10, listcache.SaveEvery)
	}
	if err := s.Sessions().Delete(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if now := saved(); bytes.Equal(now, second) {
		t.Error("the list after a delete did not rewrite the cache file")
	}
	got, counted := listWith(t, s.Path(), Open)
	if want := listFresh(t, s.Path()); !reflect.DeepEqual(got, want) || counted != 0 {
		t.Errorf("list from the saved counts (%d full counts) differs from a full count:\n%+v\n%+v", counted, got, want)
	}
}

// TestListSessionsQuick lists a store seen for the first time without
// counting (the order and last event of a full list, counts unknown),
// and the full list whenever the counts are cached: by the Store, or in
// the cache file of an earlier run.
func TestListSessionsQuick(t *testing.T) {
	useCacheDir(t, t.TempDir())
	ctx := context.Background()
	s := mustOpen(t)
	fillListStore(t, s, 21, 12)
	path := s.Path()
	s.Close()
	full := listFresh(t, path) // with an empty cache of its own

	quick := func(wantComplete bool) []Session {
		t.Helper()
		st, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		list, complete, err := st.Sessions().ListQuick(ctx, "")
		if err != nil || complete != wantComplete {
			t.Fatalf("ListSessionsQuick: complete %v, %v; want complete %v", complete, err, wantComplete)
		}
		if st.list.Counted() != 0 {
			t.Errorf("ListSessionsQuick counted %d times", st.list.Counted())
		}
		if !complete { // the same Store lists fully next, and then has the counts
			if _, err := st.Sessions().List(ctx, ""); err != nil {
				t.Fatal(err)
			}
			if again, complete, err := st.Sessions().ListQuick(ctx, ""); err != nil || !complete || !reflect.DeepEqual(again, full) {
				t.Errorf("after a full list: complete %v, %v, list equal %v", complete, err, reflect.DeepEqual(again, full))
			}
		}
		return list
	}

	first := quick(false)
	if len(first) != len(full) {
		t.Fatalf("%d sessions, want %d", len(first), len(full))
	}
	for i := range full {
		want := full[i]
		want.EventCount, want.MessageCount, want.CharsSinceCompaction = -1, -1, -1
		if !reflect.DeepEqual(first[i], want) {
			t.Errorf("session %d:\n got %+v\nwant %+v", i, first[i], want)
		}
	}
	// The full list above saved the counts: a new Store starts from them.
	if again := quick(true); !reflect.DeepEqual(again, full) {
		t.Errorf("with the cache file: %+v\nwant %+v", again, full)
	}
}
