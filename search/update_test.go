package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// manyEvents fills st with sessions of numbered events, every one with a
// word of its own (w<session>x<n>) and shared words.
func manyEvents(t testing.TB, st *store.Store, sessions, perSession int) {
	t.Helper()
	ctx := context.Background()
	var ids []int64
	for s := range sessions {
		ids = append(ids, mustSession(t, st, fmt.Sprintf("s%d", s)).ID)
	}
	// Interleave the sessions, as agents running side by side do.
	for n := range perSession {
		for s, id := range ids {
			ev := codec.AssistantText(fmt.Sprintf("w%dx%d sharedword", s, n))
			if n%7 == 0 {
				ev = codec.ToolResult("t", "Grep", nil, fmt.Sprintf("w%dx%d found", s, n), false)
			}
			if _, err := st.Events().Append(ctx, id, []codec.Event{ev}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// sampleQueries are the words whose hits compare two indexes of a
// manyEvents store.
var sampleQueries = []string{"w0x0", "w1x5", "w2x13", "w3x29", "w0x49", "sharedword", "found"}

// answers returns the hits of sampleQueries: complete results, with no
// time budget, so a busy machine cannot cut a search short.
func answers(t testing.TB, x *Index) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, q := range sampleQueries {
		r, err := x.Search(context.Background(), q, Options{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if r.Partial {
			t.Fatalf("Search(%q) is partial: %s", q, r.Note)
		}
		out[q] = hitKeys(r)
	}
	return out
}

func equalAnswers(a, b map[string][]string) bool {
	for q, h := range a {
		if !slices.Equal(h, b[q]) {
			return false
		}
	}
	return len(a) == len(b)
}

func TestBackfillNewestFirst(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	manyEvents(t, st, 4, 50)
	t.Setenv(store.CacheDirEnv, t.TempDir())
	x, err := Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	x.window = 30
	// Stop the first build after its first window.
	ctx, cancel := context.WithCancel(context.Background())
	var last [2]int64
	_, err = x.Update(ctx, func(done, total int64) {
		last = [2]int64{done, total}
		if done >= 30 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Update = %v", err)
	}
	if last[1] != 200 || last[0] < 30 || last[0] >= 200 {
		t.Errorf("progress = %v", last)
	}
	r := mustSearch(t, x, "w3x49") // the newest event
	if len(r.Hits) != 1 || !r.Partial || r.Note == "" {
		t.Errorf("newest during the build = %v partial %v note %q", hitKeys(r), r.Partial, r.Note)
	}
	if r := mustSearch(t, x, "w0x0"); len(r.Hits) != 0 || !r.Partial {
		t.Errorf("oldest during the build = %v partial %v", hitKeys(r), r.Partial)
	}
	var done [2]int64
	if _, err := x.Update(context.Background(), func(d, t int64) { done = [2]int64{d, t} }); err != nil {
		t.Fatal(err)
	}
	if done != [2]int64{200, 200} {
		t.Errorf("final progress = %v", done)
	}
	fresh := mustIndex(t, st)
	if got, want := answers(t, x), answers(t, fresh); !equalAnswers(got, want) {
		t.Errorf("after the build: %v\nwant %v", got, want)
	}
}

// TestInterruptedUpdates stops Updates at random points (cancelled between
// or in the middle of transactions) while the store grows, then checks
// that the index ends up the same as one built at once.
func TestInterruptedUpdates(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	manyEvents(t, st, 5, 40)
	t.Setenv(store.CacheDirEnv, t.TempDir())
	x, err := Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	x.window = 23
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		ctx, cancel := context.WithCancel(context.Background())
		stopAt := rng.IntN(8)
		calls := 0
		_, err := x.Update(ctx, func(int64, int64) {
			if calls++; calls > stopAt {
				cancel()
			}
		})
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Update %d: %v", i, err)
		}
		if i%10 == 9 { // the store grows meanwhile
			s := mustSession(t, st, "late", codec.AssistantText(fmt.Sprintf("lateword%d sharedword", i)))
			if _, err := st.Compactions().Add(context.Background(), s.ID, 1, "late summary"); err != nil {
				t.Fatal(err)
			}
		}
	}
	mustUpdate(t, x)
	fresh := mustIndex(t, st)
	if got, want := answers(t, x), answers(t, fresh); !equalAnswers(got, want) {
		t.Errorf("after interruptions: %v\nwant %v", got, want)
	}
}

// TestKilledUpdates kills processes that are building the index at random
// moments (SIGKILL: no cleanup at all), then checks that an Update brings
// the index to the same state as one built at once.
func TestKilledUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := testStorePath(t)
	st := mustOpenStore(t, path)
	manyEvents(t, st, 6, 200)
	cache := t.TempDir()
	t.Setenv(store.CacheDirEnv, cache)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := func(cache string) *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+path, store.CacheDirEnv+"="+cache)
		return cmd
	}
	// How long a whole build takes, in a cache of its own.
	start := time.Now()
	if out, err := helper(t.TempDir()).CombinedOutput(); err != nil {
		t.Fatalf("helper failed: %v\n%s", err, out)
	}
	full := time.Since(start)
	rng := rand.New(rand.NewPCG(3, 4))
	killed := 0
	for range 12 {
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
		case <-time.After(time.Duration(rng.Int64N(int64(full / 2)))):
			_ = cmd.Process.Kill() // it may have just finished
			<-done
			killed++
		}
	}
	t.Logf("%d of 12 helpers killed", killed)
	x, err := Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	mustUpdate(t, x)
	got := answers(t, x)
	t.Setenv(store.CacheDirEnv, t.TempDir())
	if want := answers(t, mustIndex(t, st)); !equalAnswers(got, want) {
		t.Errorf("after kills: %v\nwant %v", got, want)
	}
}

// TestSearchWhileAppending searches and updates while another goroutine
// appends and another process-like writer deletes sessions: no errors.
func TestSearchWhileAppending(t *testing.T) {
	path := testStorePath(t)
	writer := mustOpenStore(t, path)
	manyEvents(t, writer, 2, 20)
	reader := mustOpenStore(t, path) // a second connection, as another process has
	x := mustIndex(t, reader)
	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr error
	wg.Go(func() {
		defer close(stop)
		for i := range 60 {
			s, _, err := writer.Sessions().CreateWithEvents(ctx, "main", "", []codec.Event{codec.AssistantText(fmt.Sprintf("appended%d sharedword", i))})
			if err == nil && i%3 == 0 {
				err = writer.Sessions().Delete(ctx, s.ID)
			}
			if err != nil {
				writeErr = err
				return
			}
		}
	})
	searches := 0
	for done := false; !done; searches++ {
		select {
		case <-stop:
			done = true
		default:
		}
		if _, err := x.Update(ctx, nil); err != nil {
			t.Fatalf("Update while appending: %v", err)
		}
		for _, q := range []string{"sharedword", "appended1", "w1x3", "ap"} {
			if _, err := x.Search(ctx, q, Options{Limit: 20}); err != nil {
				t.Fatalf("Search(%q) while appending: %v", q, err)
			}
		}
	}
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	mustUpdate(t, x)
	if n := len(mustSearch(t, x, "appended59").Hits); n != 1 {
		t.Errorf("appended59: %d hits", n)
	}
	if n := len(mustSearch(t, x, "appended57").Hits); n != 0 {
		t.Errorf("appended57 (deleted): %d hits", n)
	}
	t.Logf("%d rounds of searches", searches)
}

// fakeClock is a budget clock that moves only when the search reads it: by
// step at every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
	n    int // readings
}

func (c *fakeClock) now() time.Time {
	c.n++
	c.t = c.t.Add(c.step)
	return c.t
}

// TestBudget checks the search's time budget with a clock of its own, so
// that how busy the machine is does not matter.
func TestBudget(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	evs := []codec.Event{codec.AssistantText("the alpha beta phrase, oldest")}
	for range 100 { // every 4-gram of "alpha beta", never the phrase
		evs = append(evs, codec.AssistantText("alpha, pha b, a beta"))
	}
	mustSession(t, st, "s", evs...)
	x := mustIndex(t, st)
	budget := Options{Budget: TypingBudget}

	// Each reading of the clock is a budget and a bit later: the first
	// chunk (firstChunk of the 101 candidates) is checked, then the search
	// stops and says so.
	x.now = (&fakeClock{step: TypingBudget + time.Millisecond}).now
	r, err := x.Search(context.Background(), `"alpha beta"`, budget)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || r.Note != budgetNote || len(r.Hits) != 0 {
		t.Errorf("search out of budget = %v partial %v note %q", hitKeys(r), r.Partial, r.Note)
	}
	// Just within the budget at every chunk: every candidate is checked and
	// the oldest event, the only hit, is found.
	c := &fakeClock{step: TypingBudget / 10}
	x.now = c.now
	if r, _ := x.Search(context.Background(), `"alpha beta"`, budget); r.Partial || len(r.Hits) != 1 {
		t.Errorf("search within budget = %v partial %v note %q", hitKeys(r), r.Partial, r.Note)
	}
	if c.n < 3 {
		t.Errorf("the clock was read %d times: the budget was not checked between chunks", c.n)
	}
	// A clock that never moves never stops a search.
	x.now = (&fakeClock{}).now
	if r, _ := x.Search(context.Background(), `"alpha beta"`, budget); r.Partial || len(r.Hits) != 1 {
		t.Errorf("search with a stopped clock = %v partial %v note %q", hitKeys(r), r.Partial, r.Note)
	}
}

// TestBudgetNotSpentAfterTheLastCandidate: a search that read every
// candidate in its first chunk is complete, however long that took.
func TestBudgetNotSpentAfterTheLastCandidate(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	var evs []codec.Event
	for i := range firstChunk - 1 {
		evs = append(evs, codec.AssistantText(fmt.Sprintf("gamma delta %d", i)))
	}
	mustSession(t, st, "s", evs...)
	x := mustIndex(t, st)
	x.now = (&fakeClock{step: time.Hour}).now // every chunk takes an hour
	r, err := x.Search(context.Background(), "gamma delta", Options{Limit: 1000, Budget: TypingBudget})
	if err != nil {
		t.Fatal(err)
	}
	if r.Partial || len(r.Hits) != firstChunk-1 {
		t.Errorf("search of %d candidates on a slow machine = %d hits, partial %v note %q", firstChunk-1, len(r.Hits), r.Partial, r.Note)
	}
}

// TestSegments: a first build ends with its lists in one segment, and
// appends add segments that merges keep few (fewer than mergeFanIn of a
// level), while every row stays found.
func TestSegments(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	manyEvents(t, st, 2, 10)
	x := mustIndex(t, st)
	levels := func() map[int]int {
		rows, err := x.r.Query("SELECT level, COUNT(*) FROM segs GROUP BY level")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[int]int{}
		for rows.Next() {
			var level, n int
			if err := rows.Scan(&level, &n); err != nil {
				t.Fatal(err)
			}
			out[level] = n
		}
		return out
	}
	if got := levels(); len(got) != 1 || got[1] != 1 && got[0] != 1 {
		t.Fatalf("segments after the first build = %v, want one", got)
	}
	for i := range 3 * mergeFanIn {
		mustSession(t, st, fmt.Sprint("more ", i), codec.UserMessage(fmt.Sprintf("appended needle%03d", i)))
		mustUpdate(t, x)
	}
	total := 0
	for level, n := range levels() {
		if n >= mergeFanIn {
			t.Errorf("%d segments of level %d after %d appends, want fewer than %d", n, level, 3*mergeFanIn, mergeFanIn)
		}
		total += n
	}
	if total < 2 {
		t.Errorf("%d segments after appends: the appends were not merged level by level", total)
	}
	for i := range 3 * mergeFanIn {
		if got := len(mustSearch(t, x, fmt.Sprintf("needle%03d", i)).Hits); got != 1 {
			t.Errorf("needle%03d: %d hits, want 1", i, got)
		}
	}
}

// TestUpdateSkipsUnchangedStore: once the index holds the whole store, an
// Update of an unchanged store reads nothing (Stats.Unchanged), and any
// write to the store (an appended event, a deleted session) makes the
// next Update read it again.
func TestUpdateSkipsUnchangedStore(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	s := mustSession(t, st, "s", codec.UserMessage("the first word is alpha"))
	gone := mustSession(t, st, "gone", codec.UserMessage("a doomed word: omega"))
	x := mustIndex(t, st)
	if got := mustUpdate(t, x); !got.Unchanged || got.Events != 0 {
		t.Errorf("Update of an unchanged store = %+v, want Unchanged and nothing read", got)
	}
	if _, err := st.Events().Append(ctx, s.ID, []codec.Event{codec.AssistantText("then came beta")}); err != nil {
		t.Fatal(err)
	}
	if got := mustUpdate(t, x); got.Unchanged || got.Indexed != 1 {
		t.Errorf("Update after an append = %+v, want the new event indexed", got)
	}
	if res := mustSearch(t, x, "beta"); len(res.Hits) != 1 {
		t.Errorf("search beta after the append: %d hits, want 1", len(res.Hits))
	}
	if got := mustUpdate(t, x); !got.Unchanged {
		t.Errorf("second Update after the append = %+v, want Unchanged", got)
	}
	if err := st.Sessions().Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if got := mustUpdate(t, x); got.Unchanged || got.Purged != 1 {
		t.Errorf("Update after a delete = %+v, want the session purged", got)
	}
}
