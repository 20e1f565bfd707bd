package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// mustOpen opens a new, not yet created store in a temporary worktree.
func mustOpen(tb testing.TB, opts ...Option) *Store {
	tb.Helper()
	return mustOpenPath(tb, filepath.Join(tb.TempDir(), ".azureal", "sessions.azs"), opts...)
}

// mustOpenPath opens the store at path and closes it when the test ends.
func mustOpenPath(tb testing.TB, path string, opts ...Option) *Store {
	tb.Helper()
	s, err := Open(context.Background(), path, opts...)
	if err != nil {
		tb.Fatalf("Open(%q) = %v", path, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// mustCreateSession creates a session or fails the test.
func mustCreateSession(tb testing.TB, s *Store, worktree, name string) Session {
	tb.Helper()
	sess, err := s.Sessions().Create(context.Background(), worktree, name)
	if err != nil {
		tb.Fatalf("CreateSession(%q, %q) = %v", worktree, name, err)
	}
	return sess
}

// mustAppend appends events or fails the test, returning the rows stored.
func mustAppend(tb testing.TB, s *Store, id int64, events ...codec.Event) int {
	tb.Helper()
	n, err := s.Events().Append(context.Background(), id, events)
	if err != nil {
		tb.Fatalf("AppendEvents(%d) = %v", id, err)
	}
	return n
}

// mustLoad loads a session's events or fails the test.
func mustLoad(tb testing.TB, s *Store, id int64) []StoredEvent {
	tb.Helper()
	evs, err := s.Events().All(context.Background(), id)
	if err != nil {
		tb.Fatalf("LoadEvents(%d) = %v", id, err)
	}
	return evs
}

// fixtureDir returns the shared fixtures' folder sub (see internal/fixtures
// for what happens when it is missing).
func fixtureDir(tb testing.TB, sub string) string {
	tb.Helper()
	return fixtures.Dir(tb, sub)
}

// fixtureStores lists the .azs files of a fixture directory.
func fixtureStores(tb testing.TB, sub string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(fixtureDir(tb, sub), "*.azs"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no .azs fixtures in %s: %v", sub, err)
	}
	sort.Strings(files)
	return files
}

// copyToWorktree copies src to <tmp>/.azureal/sessions.azs and returns it.
func copyToWorktree(tb testing.TB, src string) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), ".azureal", "sessions.azs")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		tb.Fatal(err)
	}
	copyFile(tb, src, dst)
	return dst
}

func copyFile(tb testing.TB, src, dst string) {
	tb.Helper()
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}

// firstDiff describes the first difference between two decoded JSON values.
func firstDiff(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %T, want object", path, got)
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if d := firstDiff(path+"."+k, g[k], w[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %T, want array", path, got)
		}
		for i := range max(len(g), len(w)) {
			if i >= len(g) || i >= len(w) {
				return fmt.Sprintf("%s: got %d elements, want %d", path, len(g), len(w))
			}
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%s: got %#v, want %#v", path, got, want)
	}
	return ""
}
