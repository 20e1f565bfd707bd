package scale

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// openList opens a new Store on path and lists every session, as the window
// does when it opens a project. It returns the number of sessions.
func openList(b *testing.B, path string) int {
	return withStore(b, path, func(ctx context.Context, st *store.Store) ([]store.Session, error) {
		return st.Sessions().List(ctx, "")
	})
}

// openListQuick is openList as the window lists a store it has no counts
// for: Sessions().ListQuick (the sessions in order, without counts).
func openListQuick(b *testing.B, path string) int {
	return withStore(b, path, func(ctx context.Context, st *store.Store) ([]store.Session, error) {
		list, complete, err := st.Sessions().ListQuick(ctx, "")
		if err == nil && complete {
			err = errors.New("ListSessionsQuick counted (want a list without counts)")
		}
		return list, err
	})
}

// withStore opens a new Store on path, lists its sessions with list and
// returns how many there are.
func withStore(b *testing.B, path string, list func(context.Context, *store.Store) ([]store.Session, error)) int {
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sessions, err := list(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	return len(sessions)
}

// BenchmarkOpenList opens the store and lists its sessions with their
// counts, from nothing to the list the sidebar shows:
//
//   - first: a new Store with an empty cache folder (the first time Lazuli
//     ever sees the store: every row is counted);
//   - first-quick: the same with Sessions().ListQuick, the list the window
//     shows while the first count runs (sessions in order, without their
//     message counts);
//   - cached: a new Store whose cache folder holds the list counts an
//     earlier Store wrote (every later start);
//   - process-first, process-cached: the same in a new process, from its
//     start to its exit;
//   - sqlite3-cli: the baseline, AZUREAL's list query (ListQuery) run by
//     the sqlite3 command-line tool on the same file, from start to exit.
func BenchmarkOpenList(b *testing.B) {
	path := storePath(b)
	run := func(b *testing.B, prepare func(b *testing.B), list func(b *testing.B) int) {
		var s samples
		n := 0
		for b.Loop() {
			prepare(b)
			start := time.Now()
			n = list(b)
			s = append(s, time.Since(start))
		}
		s.report(b, "list")
		b.ReportMetric(float64(n), "sessions")
	}
	freshCache := func(b *testing.B) { b.Setenv(store.CacheDirEnv, b.TempDir()) }
	warmCache := func(b *testing.B) {
		b.Setenv(store.CacheDirEnv, b.TempDir())
		openList(b, path)
	}
	keep := func(*testing.B) {}
	inProcess := func(b *testing.B) int { return openList(b, path) }
	child := func(b *testing.B) int { return runChildList(b, path) }

	b.Run("first", func(b *testing.B) { run(b, freshCache, inProcess) })
	b.Run("first-quick", func(b *testing.B) { run(b, freshCache, func(b *testing.B) int { return openListQuick(b, path) }) })
	b.Run("cached", func(b *testing.B) { warmCache(b); run(b, keep, inProcess) })
	b.Run("process-first", func(b *testing.B) { run(b, freshCache, child) })
	b.Run("process-cached", func(b *testing.B) { warmCache(b); run(b, keep, child) })
	b.Run("sqlite3-cli", func(b *testing.B) {
		bin, err := exec.LookPath("sqlite3")
		if err != nil {
			b.Skip("sqlite3 is not installed (scripts/install-deps.sh --tools installs it)")
		}
		run(b, keep, func(b *testing.B) int { return sqlite3List(b, bin, path) })
	})
}

// sqlite3List runs ListQuery with the sqlite3 tool and returns the number
// of rows it printed.
func sqlite3List(b *testing.B, bin, path string) int {
	cmd := exec.Command(bin, "-readonly", "-bail", path, ListQuery)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		b.Fatalf("sqlite3: %v: %s", err, errOut.Bytes())
	}
	return bytes.Count(out.Bytes(), []byte("\n"))
}
