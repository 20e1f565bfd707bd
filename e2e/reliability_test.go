package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/internal/fakemodel"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/internal/nativetree"
)

// killIterations is how many times TestKillDuringImportAndIndex kills lazuli
// (issue 5: "Kill the process 200 times at random points during import and
// indexing"). -short runs a tenth of them, unless LAZULI_E2E_REQUIRED=1.
const killIterations = 200

// world is a native history, a store and a cache folder, and the
// environment the lazuli binary runs with over them.
type world struct {
	t     *testing.T
	ctx   context.Context
	tree  nativetree.Tree
	work  string // holds .azureal/sessions.azs
	store string
	cache string
	env   []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	// Under LAZULI_E2E_REQUIRED=1 these tests never skip: missing
	// fixtures fail them even outside CI.
	var tree nativetree.Tree
	if fakemodel.E2ERequired() {
		tree = nativetree.ForTestFrom(t, fixtures.MustDir(t, "transcripts"))
	} else {
		tree = nativetree.ForTest(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	t.Cleanup(cancel)
	root := t.TempDir()
	w := &world{t: t, ctx: ctx, tree: tree, work: filepath.Join(root, "work"), cache: filepath.Join(root, "cache")}
	w.store = filepath.Join(w.work, ".azureal", "sessions.azs")
	if err := os.MkdirAll(w.work, 0o755); err != nil {
		t.Fatal(err)
	}
	w.env = append(os.Environ(), "HOME="+tree.Home, "LAZULI_CACHE_DIR="+w.cache, "XDG_CACHE_HOME="+filepath.Join(root, "xdg-cache"))
	return w
}

// cmd returns lazuli with args, run in the worktree.
func (w *world) cmd(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	c := exec.CommandContext(w.ctx, lazuliBin, args...)
	c.Dir, c.Env = w.work, w.env
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	return c, &stdout, &stderr
}

// run runs lazuli to the end and returns its output and exit code.
func (w *world) run(args ...string) (string, string, int) {
	w.t.Helper()
	c, stdout, stderr := w.cmd(args...)
	err := c.Run()
	if w.ctx.Err() != nil {
		w.t.Fatalf("timed out: lazuli %s", strings.Join(args, " "))
	}
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			w.t.Fatalf("lazuli %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// ok runs lazuli and fails the test unless it exits 0.
func (w *world) ok(args ...string) string {
	w.t.Helper()
	out, errOut, code := w.run(args...)
	if code != 0 {
		w.t.Fatalf("lazuli %s: exit %d\nstdout:\n%.3000s\nstderr:\n%.3000s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// importArgs imports the native history into the world's store.
func (w *world) importArgs() []string {
	return []string{"import-native", "--store", w.store, "--claude-dir", w.tree.ClaudeDir, "--codex-dir", w.tree.CodexDir}
}

// timed runs lazuli to the end and returns how long it took.
func (w *world) timed(args ...string) time.Duration {
	w.t.Helper()
	start := time.Now()
	w.ok(args...)
	return time.Since(start)
}

// killWindow is the span a kill's random delay is drawn from: at first the
// uninterrupted run's time; a run that finishes before its kill lowers it to
// how long that run took, and a kill that lands widens it again up to the
// first value, so the delays follow how fast the machine is right now.
type killWindow struct{ d, max time.Duration }

// killAfter starts lazuli and SIGKILLs it after a random delay within
// window unless it has finished; it reports whether the kill landed while
// the process ran.
func (w *world) killAfter(window *killWindow, rng *rand.Rand, args ...string) (killed bool) {
	w.t.Helper()
	d := randDuration(rng, window.d)
	c, stdout, stderr := w.cmd(args...)
	start := time.Now()
	if err := c.Start(); err != nil {
		w.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			w.t.Fatalf("lazuli %s finished with %v before the kill\nstdout:\n%.3000s\nstderr:\n%.3000s", strings.Join(args, " "), err, stdout, stderr)
		}
		window.d = max(time.Since(start), time.Millisecond)
		return false
	case <-time.After(d):
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	err := <-done
	var ee *exec.ExitError
	if err != nil && errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			window.d = min(window.d*5/4, window.max)
			return true
		}
	}
	if err != nil {
		w.t.Fatalf("lazuli %s: %v\nstderr:\n%.3000s", strings.Join(args, " "), err, stderr)
	}
	return false
}

// check runs `lazuli check --json` and fails the test unless the store has no
// error findings.
func (w *world) check(when string) {
	w.t.Helper()
	out, errOut, code := w.run("check", "--store", w.store, "--json")
	if code != 0 {
		w.t.Fatalf("%s: lazuli check: exit %d\nstdout:\n%.4000s\nstderr:\n%.2000s", when, code, out, errOut)
	}
}

// sessionShape is what must be the same after an import that was killed and
// resumed and after an uninterrupted one.
type sessionShape struct {
	Name       string `json:"name"`
	Worktree   string `json:"worktree"`
	Created    string `json:"created"`
	EventCount int64  `json:"event_count"`
	Messages   int64  `json:"message_count"`
	Chars      int64  `json:"chars_since_compaction"`
}

func (w *world) shapes(storePath string) []string {
	w.t.Helper()
	var ss []sessionShape
	if err := json.Unmarshal([]byte(w.ok("ls", "--store", storePath, "--json")), &ss); err != nil {
		w.t.Fatal(err)
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%+v", s)
	}
	sort.Strings(out)
	return out
}

// hits runs `lazuli search --json` and returns its hits as sorted
// "session:seq:kind" keys.
func (w *world) hits(query string) []string {
	w.t.Helper()
	var page struct {
		Hits []struct {
			SessionID int64  `json:"session_id"`
			Seq       int64  `json:"seq"`
			Kind      string `json:"kind"`
		} `json:"hits"`
		More, Partial bool
	}
	out := w.ok("search", "--store", w.store, "--json", "--limit", "100000", query)
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		w.t.Fatalf("search --json: %v\n%.2000s", err, out)
	}
	if page.More || page.Partial {
		w.t.Fatalf("search --json %q: more %v partial %v: not the whole answer", query, page.More, page.Partial)
	}
	keys := make([]string, len(page.Hits))
	for i, h := range page.Hits {
		keys[i] = fmt.Sprintf("%d:%d:%s", h.SessionID, h.Seq, h.Kind)
	}
	sort.Strings(keys)
	return keys
}

// searchQueries are searched after the kills: common and rare text.
var searchQueries = []string{"the", "error", "func ", "package.json", "git status"}

// TestKillDuringImportAndIndex kills lazuli with SIGKILL at random points
// while it imports native history and while it builds the search index. After
// every kill the store passes `lazuli check`; after every killed indexing run
// a search still answers; at the end a resumed import equals an
// uninterrupted one and the resumed index answers exactly like a rebuilt one.
func TestKillDuringImportAndIndex(t *testing.T) {
	w := newWorld(t)
	n := killIterations
	if fakemodel.Short() {
		n /= 10
	}

	// How long the uninterrupted work takes on this machine, in a scratch
	// store that is also the reference for the resumed import.
	ref := filepath.Join(t.TempDir(), "ref.azs")
	importTime := w.timed("import-native", "--store", ref, "--claude-dir", w.tree.ClaudeDir, "--codex-dir", w.tree.CodexDir)
	indexTime := w.timed("reindex", "--store", ref)
	t.Logf("uninterrupted: import %v, index %v", importTime, indexTime)
	importWindow := killWindow{importTime, importTime}
	indexWindow := killWindow{indexTime, indexTime}
	want := w.shapes(ref)
	if len(want) == 0 {
		t.Fatal("the reference import stored no sessions")
	}

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
	var importKills, indexKills int
	resume := false // the last import was killed: resume it
	for i := range n {
		if i%2 == 0 {
			// Import: resume what a killed import left, else start over
			// (an import that finished leaves nothing to do).
			if !resume {
				removeStore(t, w.store)
			}
			resume = w.killAfter(&importWindow, rng, w.importArgs()...)
			if resume {
				importKills++
			}
			w.check(fmt.Sprintf("iteration %d, after a killed import", i))
			continue
		}
		if !hasData(w.store) { // missing, or left empty by an import killed at once
			w.ok(w.importArgs()...)
		}
		// Index: a full rebuild or an incremental update, killed.
		args := []string{"reindex", "--store", w.store}
		if rng.IntN(2) == 0 {
			args = []string{"search", "--store", w.store, "--json", searchQueries[rng.IntN(len(searchQueries))]}
		}
		if w.killAfter(&indexWindow, rng, args...) {
			indexKills++
		}
		w.check(fmt.Sprintf("iteration %d, after a killed %s", i, args[0]))
		w.hits("error") // answers after the kill: the index recovers or rebuilds
	}
	t.Logf("kills that landed mid-run: %d of %d imports, %d of %d index runs", importKills, (n+1)/2, indexKills, n/2)
	if importKills < n/8 || indexKills < n/8 {
		t.Errorf("too few kills landed while lazuli ran (%d imports, %d index runs): the random delays miss the work", importKills, indexKills)
	}

	// The resumed import lands exactly where the uninterrupted one did.
	w.ok(w.importArgs()...)
	w.check("after the final import")
	if got := w.shapes(w.store); !slices.Equal(got, want) {
		t.Errorf("resumed import differs from an uninterrupted one:\ngot  %d sessions %q\nwant %d sessions %q", len(got), got, len(want), want)
	}

	// The index left by the kills answers exactly like a fresh one.
	before := map[string][]string{}
	for _, q := range searchQueries {
		before[q] = w.hits(q)
	}
	w.ok("reindex", "--store", w.store)
	for _, q := range searchQueries {
		if got := w.hits(q); !slices.Equal(before[q], got) {
			t.Errorf("search %q: the index left by the kills gave %d hits, a rebuilt one %d", q, len(before[q]), len(got))
		}
	}
	if len(before["error"]) == 0 {
		t.Error(`search "error" found nothing in the imported history`)
	}
}

// TestSearchWhileAppending searches in one process while another appends to
// the same store: every search succeeds.
func TestSearchWhileAppending(t *testing.T) {
	w := newWorld(t)
	var files []string
	for name, p := range w.tree.Files {
		if strings.HasPrefix(name, "B_") && !strings.Contains(name, "agent-") {
			files = append(files, p)
		}
	}
	sort.Strings(files)
	if len(files) < 3 {
		t.Fatalf("%d Claude transcripts among the fixtures, want at least 3", len(files))
	}
	w.ok("import", "--store", w.store, "--name", "target", files[0])
	w.ok("search", "--store", w.store, "--json", "error")

	appends := 12
	if fakemodel.Short() {
		appends = 4
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var appendErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(stop)
		for i := range appends {
			c, _, stderr := w.cmd("import", "--store", w.store, "--session", "1", files[1+i%(len(files)-1)])
			if err := c.Run(); err != nil {
				appendErr = fmt.Errorf("append %d: %v: %s", i, err, stderr)
				return
			}
		}
	}()
	searches := 0
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		out, errOut, code := w.run("search", "--store", w.store, "--json", searchQueries[searches%len(searchQueries)])
		if code != 0 {
			t.Fatalf("search %d while appending: exit %d\n%s\n%s", searches, code, out, errOut)
		}
		var page struct{ Hits []json.RawMessage }
		if err := json.Unmarshal([]byte(out), &page); err != nil || page.Hits == nil {
			t.Fatalf("search %d while appending: not a JSON answer with hits: %v\n%.2000s", searches, err, out)
		}
		searches++
	}
	wg.Wait()
	if appendErr != nil {
		t.Fatal(appendErr)
	}
	t.Logf("%d searches during %d appends", searches, appends)
	if searches < 2 {
		t.Errorf("only %d searches overlapped the appends", searches)
	}
	w.check("after searching while appending")
	// The index caught up with everything appended.
	if got, want := w.hits("error"), w.scanHits("error"); !slices.Equal(got, want) {
		t.Errorf("after the appends the index finds %d hits for %q, a rebuilt index %d", len(got), "error", len(want))
	}
}

// scanHits is hits after a full rebuild of the index.
func (w *world) scanHits(query string) []string {
	w.t.Helper()
	w.ok("reindex", "--store", w.store)
	return w.hits(query)
}

// randDuration is a random point in [0, 1.2·d]: most kills land while the
// work runs, some after it ended.
func randDuration(rng *rand.Rand, d time.Duration) time.Duration {
	return time.Duration(rng.Int64N(int64(d)*6/5 + 1))
}

func removeStore(t *testing.T, p string) {
	t.Helper()
	for _, f := range []string{p, p + "-journal", p + "-wal", p + "-shm"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// hasData reports whether p is a file with content; SQLite, Lazuli and
// AZUREAL treat an empty file as a new store.
func hasData(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Size() > 0
}
