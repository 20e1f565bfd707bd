package insight

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestMain keeps the indexes out of the user's cache folder, and runs the
// test binary as the indexing process of TestKilledUpdates when asked to.
func TestMain(m *testing.M) {
	if p := os.Getenv(helperEnv); p != "" {
		os.Exit(helperMain(p))
	}
	dir, err := os.MkdirTemp("", "lazuli-insight-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.Setenv(store.CacheDirEnv, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // best effort: a temporary folder
	os.Exit(code)
}

const helperEnv = "LAZULI_INSIGHT_HELPER_STORE"

// helperMain updates the index of the store at path, a few events per
// transaction so that a kill lands between many of them.
func helperMain(path string) int {
	ctx := context.Background()
	st, err := store.Open(ctx, path)
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
	x.batch = 7
	if _, err := x.Update(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func ptr(s string) *string { return &s }

func input(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// turnEvents is one turn touching files and refs, with its usage.
func turnEvents(i int) ([]codec.Event, []store.Usage) {
	f := fmt.Sprintf("/w/src/f%d.go", i%3)
	evs := []codec.Event{
		codec.UserMessage(fmt.Sprintf("turn %d: fix issue #%d", i, i)),
		codec.ToolCall("r", "Read", ptr(f), input(map[string]string{"file_path": f})),
		codec.ToolResult("r", "Read", ptr(f), "x", false),
		codec.ToolCall("e", "Edit", ptr(f), input(map[string]string{"file_path": f, "old_string": "a", "new_string": "b"})),
		codec.ToolResult("e", "Edit", ptr(f), "failed", i%2 == 0),
		codec.ToolCall("b", "Bash", nil, input(map[string]string{"command": fmt.Sprintf("git checkout -b topic-%d", i%4)})),
		codec.ToolResult("b", "Bash", nil, fmt.Sprintf("[topic %07x] msg", 0xabc0000+i), false),
		codec.AssistantText(fmt.Sprintf("see https://github.com/o/r/pull/%d", i%5)),
		codec.Complete(true, 10, 0),
	}
	u := []store.Usage{{Event: len(evs) - 1, Model: "gpt-5", Backend: "codex", Tokens: store.Tokens{Input: int64(100 + i), Output: 10, CacheRead: 5}}}
	return evs, u
}

// fill adds sessions of turns to st.
func fill(t testing.TB, st *store.Store, sessions, turns int) {
	t.Helper()
	ctx := context.Background()
	for s := range sessions {
		var evs []codec.Event
		var us []store.Usage
		for i := range turns {
			e, u := turnEvents(s*turns + i)
			for _, x := range u {
				x.Event += len(evs)
				us = append(us, x)
			}
			evs = append(evs, e...)
		}
		if _, _, err := st.Sessions().CreateWithEvents(ctx, "main", "", evs, us...); err != nil {
			t.Fatal(err)
		}
	}
}

// dump reads every row of the index's tables.
func dump(t testing.TB, x *Index) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"sessions", "turns", "usage", "files", "refs", "tools"} {
		rows, err := x.db.Query("SELECT * FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, table+fmt.Sprint(vals))
		}
		rows.Close()
	}
	sort.Strings(out)
	return out
}

func mustOpenStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func mustIndex(t testing.TB, st *store.Store) *Index {
	t.Helper()
	x, err := Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if _, err := x.Update(context.Background()); err != nil {
		t.Fatal(err)
	}
	return x
}

// fresh builds the index of st from scratch in another cache folder.
func fresh(t *testing.T, st *store.Store) []string {
	t.Helper()
	t.Setenv(store.CacheDirEnv, t.TempDir())
	x := mustIndex(t, st)
	return dump(t, x)
}

// TestIncrementalEqualsFresh: an index updated after appends, a new
// session and a deleted one holds exactly what a fresh build holds.
func TestIncrementalEqualsFresh(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 3, 4)
	x := mustIndex(t, st)
	x.batch = 5
	if n := len(dump(t, x)); n == 0 {
		t.Fatal("empty index")
	}
	e, u := turnEvents(99)
	if _, err := st.Events().Append(ctx, 2, e, u...); err != nil {
		t.Fatal(err)
	}
	fill(t, st, 1, 2)
	if err := st.Sessions().Delete(ctx, 1); err != nil {
		t.Fatal(err)
	}
	s, err := x.Update(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Purged != 1 {
		t.Errorf("purged %d sessions, want 1", s.Purged)
	}
	got := dump(t, x)
	if want := fresh(t, st); !reflect.DeepEqual(got, want) {
		t.Errorf("incremental:\n%s\nfresh:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCounts checks the derived rows of known turns.
func TestCounts(t *testing.T) {
	st := mustOpenStore(t)
	fill(t, st, 1, 4)
	x := mustIndex(t, st)
	tot, err := x.Usage().Stats(context.Background(), StatsQuery{})
	if err != nil || len(tot) != 1 {
		t.Fatalf("stats %v %v", tot, err)
	}
	want := Totals{Key: "total", Sessions: 1, Turns: 4, Tokens: store.Tokens{Input: 100 + 101 + 102 + 103, Output: 40, CacheRead: 20,
		CostUSD: EstimateCost("gpt-5", "codex", 406, 40, 20, 0), CostEstimated: true}}
	if tot[0] != want {
		t.Errorf("stats = %+v\nwant %+v", tot[0], want)
	}
	files, err := x.Files().List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// f0 in turns 0 and 3, f1 and f2 once: a read and an edit each.
	counts := map[string]int64{}
	for _, f := range files {
		counts[f.Path+" "+f.Action] = f.Count
	}
	wantF := map[string]int64{"/w/src/f0.go read": 2, "/w/src/f0.go edit": 2, "/w/src/f1.go read": 1, "/w/src/f1.go edit": 1,
		"/w/src/f2.go read": 1, "/w/src/f2.go edit": 1}
	if !reflect.DeepEqual(counts, wantF) {
		t.Errorf("files %v", counts)
	}
	var errs int64
	if err := x.db.QueryRow("SELECT SUM(tool_errors) FROM turns").Scan(&errs); err != nil || errs != 2 {
		t.Errorf("tool errors %d, %v", errs, err)
	}
}

// TestKilledUpdates kills updating processes at random moments; the index
// they leave, updated once more, equals a fresh build.
func TestKilledUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	st := mustOpenStore(t)
	fill(t, st, 6, 40)
	cache := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := func(cache string) *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+st.Path(), store.CacheDirEnv+"="+cache)
		return cmd
	}
	start := time.Now()
	if out, err := helper(t.TempDir()).CombinedOutput(); err != nil {
		t.Fatalf("helper failed: %v\n%s", err, out)
	}
	full := time.Since(start)
	rng := rand.New(rand.NewPCG(5, 6))
	killed := 0
	for range 10 {
		cmd := helper(cache)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("helper failed: %v", err)
			}
		case <-time.After(time.Duration(rng.Int64N(int64(full)))):
			_ = cmd.Process.Kill() // it may have just finished
			<-done
			killed++
		}
	}
	t.Logf("%d of 10 helpers killed", killed)
	t.Setenv(store.CacheDirEnv, cache)
	got := dump(t, mustIndex(t, st))
	if want := fresh(t, st); !reflect.DeepEqual(got, want) {
		t.Errorf("after kills: %d rows, fresh %d", len(got), len(want))
	}
}

// TestDamagedIndexIsRebuilt: garbage in the index file is started over.
func TestDamagedIndexIsRebuilt(t *testing.T) {
	st := mustOpenStore(t)
	fill(t, st, 1, 2)
	path, err := IndexPath(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 400)), 0o600); err != nil {
		t.Fatal(err)
	}
	x := mustIndex(t, st)
	if len(dump(t, x)) == 0 {
		t.Error("nothing indexed")
	}
}

// fillAt adds sessions of turns to the store at path, created at the given
// times, with the turns' texts numbered from base and a last reply tail
// (none when ""), and closes it.
func fillAt(t *testing.T, path string, base int, tail string, created ...string) {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for s, c := range created {
		var evs []codec.Event
		var us []store.Usage
		for i := range 3 {
			e, u := turnEvents(base + s*3 + i)
			for _, x := range u {
				x.Event += len(evs)
				us = append(us, x)
			}
			evs = append(evs, e...)
		}
		if tail != "" {
			evs = append(evs, codec.AssistantText(tail))
		}
		if _, _, err := st.Transfer().CreateAt(context.Background(), "main", "", c, evs, us...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCopyOverEqualsFresh: another store copied over the indexed one at
// the same path, with the same session ids, leaves the index equal to a
// fresh build of the new file after the next Update: no rows of the old
// file's sessions, none of the new file's missing (the index kept the old
// usage rows and lost the session rows). Both files have as many events,
// so the row at the index's mark has the same session and seq.
func TestCopyOverEqualsFresh(t *testing.T) {
	old := []string{"2026-01-02 03:04:05", "2026-01-03 03:04:05"}
	for name, c := range map[string]struct {
		base          int
		tail, newTail string
		created       []string
	}{
		// Other sessions whose last rows are the same bytes: told by the
		// sessions' created times (events before the mark).
		"other sessions, same last row": {100, "", "", []string{"2026-02-02 03:04:05", "2026-02-03 03:04:05"}},
		// A copy of the store that went its own way: the same sessions,
		// told by the row at the mark.
		"a copy that went its own way": {0, "old ending", "new ending", old},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			path := filepath.Join(dir, "wt", ".azureal", "sessions.azs")
			other := filepath.Join(dir, "other", ".azureal", "sessions.azs")
			fillAt(t, path, 0, c.tail, old...)
			fillAt(t, other, c.base, c.newTail, c.created...)
			st, err := store.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			x := mustIndex(t, st)
			x.Close()
			st.Close()
			b, err := os.ReadFile(other)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			st, err = store.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			x, err = Open(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { x.Close() })
			if s, err := x.Update(ctx); err != nil || !s.Rebuilt {
				t.Errorf("update after the copy-over: %+v, %v; want it rebuilt", s, err)
			}
			got := dump(t, x)
			if want := fresh(t, st); !reflect.DeepEqual(got, want) {
				t.Errorf("after the copy-over:\n%s\nfresh:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestReusedIDForgetsFolder: a session deleted and its id reused by
// another one (as AZUREAL does) leaves nothing of the old session behind:
// not its folder, which made the new session's paths relative to it.
func TestReusedIDForgetsFolder(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	read := func(f string) codec.Event {
		return codec.ToolCall("r", "Read", ptr(f), input(map[string]string{"file_path": f}))
	}
	old, _, err := st.Transfer().CreateAt(ctx, "main", "", "2026-01-02 03:04:05",
		[]codec.Event{codec.Init("/elsewhere", "m"), read("/elsewhere/a.go")})
	if err != nil {
		t.Fatal(err)
	}
	x := mustIndex(t, st)
	if err := st.Sessions().Delete(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	reused, _, err := st.Transfer().CreateAt(ctx, "main", "", "2026-01-03 03:04:05", []codec.Event{codec.UserMessage("x")})
	if err != nil || reused.ID != old.ID {
		t.Fatalf("new session %d, %v; want the id %d again", reused.ID, err, old.ID)
	}
	for _, f := range []string{"/elsewhere/b.go", "/elsewhere/c.go"} {
		if _, err := st.Events().Append(ctx, reused.ID, []codec.Event{read(f)}); err != nil {
			t.Fatal(err)
		}
		if _, err := x.Update(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := dump(t, x)
	if want := fresh(t, st); !reflect.DeepEqual(got, want) {
		t.Errorf("incremental:\n%s\nfresh:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An Update of a store unchanged since the last one reads nothing; a
// change to the store is read by the next.
func TestUpdateUnchangedStore(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 2, 3)
	x, err := Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if s, err := x.Update(ctx); err != nil || s.Unchanged || s.Events == 0 {
		t.Fatalf("first Update = %+v, %v, want events read", s, err)
	}
	s, err := x.Update(ctx)
	if err != nil || !s.Unchanged || s.Events != 0 {
		t.Fatalf("Update of an unchanged store = %+v, %v, want Unchanged and nothing read", s, err)
	}
	fill(t, st, 1, 2)
	s, err = x.Update(ctx)
	if err != nil || s.Unchanged || s.Events == 0 {
		t.Fatalf("Update after new events = %+v, %v, want them read", s, err)
	}
	before := dump(t, x)
	if _, err := x.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if after := dump(t, x); !reflect.DeepEqual(before, after) {
		t.Errorf("updated index differs from a rebuilt one:\n%v\n%v", before, after)
	}
}
