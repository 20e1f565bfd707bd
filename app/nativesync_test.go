package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// hangGuard is how long a test waits for the watcher before it calls it
// hung: far longer than any machine needs, so that it never decides a
// result, only ends a test that would wait forever.
const hangGuard = 2 * time.Minute

// syncFolders makes a worktree and the history folders of a sync test
// under a new temporary folder, dir.
func syncFolders(t *testing.T) (dir string, wt Worktree, projects, codex string) {
	t.Helper()
	dir = t.TempDir()
	wt = Worktree{Dir: filepath.Join(dir, "repo"), Branch: "main", StorePath: filepath.Join(dir, "repo", StoreRelPath)}
	projects, codex = filepath.Join(dir, "claude", "projects"), filepath.Join(dir, "codex", "sessions")
	for _, d := range []string{wt.Dir, codex} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, wt, projects, codex
}

// The window keeps native history in sync: a transcript written under the
// watched history folders for one of its worktrees is imported without a
// manual import, and what is appended to it later is appended to its
// session; another project's transcript is left alone.
func TestNativeSyncImportsWhatIsNew(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	dir, wt, projects, codex := syncFolders(t)
	if err := os.MkdirAll(filepath.Join(projects, native.EncodeClaudeProject(wt.Dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	imported := make(chan string, 8)
	ready := make(chan struct{})
	s := &nativeSync{pw: pw, dirs: native.Dirs{native.Claude: projects, native.Codex: codex}, debounce: time.Millisecond,
		previewCache: filepath.Join(t.TempDir(), "previews.json"),
		imported:     func(msg string) { imported <- msg },
		watching:     func() { close(ready) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	wait := func(what string) string {
		t.Helper()
		select {
		case msg := <-imported:
			return msg
		case <-time.After(hangGuard):
			t.Fatalf("%s: no import", what)
		}
		return ""
	}
	select {
	case <-ready:
	case <-time.After(hangGuard):
		t.Fatal("the watcher never started")
	}

	writeClaude(t, projects, "elsewhere", filepath.Join(dir, "other"), "other work")
	writeClaude(t, projects, "synced", wt.Dir, "synced work")
	if msg := wait("new transcript"); msg != "1 new session" {
		t.Errorf("first import says %q", msg)
	}
	list := listReadOnly(t, wt.StorePath)
	if len(list) != 1 || list[0].Name != "synced work" || list[0].Worktree != "main" {
		t.Fatalf("store after the first sync: %+v", list)
	}

	path := filepath.Join(projects, native.EncodeClaudeProject(wt.Dir), "synced.jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(`{"type":"user","message":{"role":"user","content":"and more"},"uuid":"u-more","parentUuid":"u-synced","sessionId":"synced","cwd":"` +
		wt.Dir + `","timestamp":"2025-06-01T10:05:00.000Z"}` + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if msg := wait("appended line"); msg != "new lines in 1 session" {
		t.Errorf("second import says %q", msg)
	}
	if list := listReadOnly(t, wt.StorePath); len(list) != 1 || list[0].EventCount != 2 {
		t.Errorf("store after the append: %+v", list)
	}
}

// Turned off (the project's setting), the window starts no sync.
func TestNativeSyncOff(t *testing.T) {
	fa := test.NewTempApp(t)
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	pw := testWindow(t, fa, Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)})
	defer pw.close()
	fa.Preferences().SetBool(prefNativeSyncOff+pw.projectKey(), true)
	pw.imports.startNativeSync()
	if pw.imports.stopNativeSync != nil {
		t.Error("sync started with the setting off")
	}
	fa.Preferences().SetBool(prefNativeSyncOff+pw.projectKey(), false)
	pw.imports.startNativeSync()
	if pw.imports.stopNativeSync == nil {
		t.Error("sync not started with the setting on")
	}
}

// A sync indexes what it imports in the same pass (search.ImportFeed): the
// rows reach the index as they are stored, so nothing is left for a
// catch-up pass, and a search right after finds them. (The rows of the
// import that makes the store and its index are read back by the index's
// first build, in the same import.)
func TestNativeSyncFeedsTheIndex(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	_, wt, projects, codex := syncFolders(t)
	pw, ctx := searchWindow(t, fa, []Worktree{wt})
	var fed []search.Stats
	pw.search.fed = func(path string, s search.Stats) {
		if path != wt.StorePath {
			t.Errorf("fed the index of %s", path)
		}
		fed = append(fed, s)
	}
	s := &nativeSync{pw: pw, dirs: native.Dirs{native.Claude: projects, native.Codex: codex}, previewCache: filepath.Join(t.TempDir(), "previews.json")}
	// The first import makes the store, and its index from nothing.
	writeClaude(t, projects, "first", wt.Dir, "first work")
	s.sync(ctx)
	if len(fed) != 1 || fed[0].Indexed != 1 {
		t.Fatalf("the first import fed the index: %+v", fed)
	}
	writeClaude(t, projects, "fedsession", wt.Dir, "quuxfrob work")
	s.sync(ctx)
	if len(fed) != 2 {
		t.Fatalf("the second import fed the index %d times in all, want 2", len(fed))
	}
	if f := fed[1]; f.Indexed != 1 || f.Fed != f.Indexed {
		t.Errorf("indexed %d rows, %d of them as the import stored them: the rest waited for a catch-up", f.Indexed, f.Fed)
	}
	if res := pw.search.searchAll(ctx, "quuxfrob"); len(res.Hits) != 1 {
		t.Errorf("search right after the import = %+v", res)
	}
	s.sync(ctx) // nothing new: the index is not fed
	if len(fed) != 2 {
		t.Errorf("a sync with nothing new fed the index")
	}
}
