package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestMain keeps every cache the tests make (indexes, the store's list
// counts) out of the user's cache folder, and runs the test binary as the
// indexing process of TestKilledUpdates when asked to.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	dir, err := os.MkdirTemp("", "lazuli-search-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.Setenv(store.CacheDirEnv, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // best effort: it is a temporary folder
	os.Exit(code)
}

// helperEnv names the store a helper process indexes.
const helperEnv = "LAZULI_SEARCH_HELPER_STORE"

// helperMain updates the index of the store named by helperEnv, with
// small windows so that a kill lands between many transactions.
func helperMain() int {
	ctx := context.Background()
	st, err := store.Open(ctx, os.Getenv(helperEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	x, err := Open(ctx, st)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer x.Close()
	x.window = 97
	if _, err := x.Update(ctx, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// testStorePath returns the path of a new store in a worktree-like folder.
func testStorePath(t testing.TB) string {
	return filepath.Join(t.TempDir(), ".azureal", "sessions.azs")
}

// mustOpenStore opens (lazily creating) the store at path.
func mustOpenStore(t testing.TB, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// mustSession creates a session holding events.
func mustSession(t testing.TB, st *store.Store, name string, events ...codec.Event) store.Session {
	t.Helper()
	s, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", name, events)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustIndex opens st's index in a fresh cache folder and updates it.
func mustIndex(t testing.TB, st *store.Store) *Index {
	t.Helper()
	if tt, ok := t.(*testing.T); ok {
		tt.Setenv(store.CacheDirEnv, t.TempDir())
	}
	x, err := Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	mustUpdate(t, x)
	return x
}

func mustUpdate(t testing.TB, x *Index) Stats {
	t.Helper()
	s, err := x.Update(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustSearch(t testing.TB, x *Index, q string) Result {
	t.Helper()
	r, err := x.Search(context.Background(), q, Options{})
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	return r
}

// hitKeys lists hits as "S<session>#<seq> <kind>".
func hitKeys(r Result) []string {
	out := make([]string, len(r.Hits))
	for i, h := range r.Hits {
		out[i] = fmt.Sprintf("S%d#%d %s", h.SessionID, h.Seq, h.Kind)
	}
	return out
}
