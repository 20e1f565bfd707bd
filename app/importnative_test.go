package app

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/views"
)

// writeClaude writes a one-prompt Claude transcript that ran in cwd.
func writeClaude(t *testing.T, projects, id, cwd, prompt string) {
	t.Helper()
	path := filepath.Join(projects, native.EncodeClaudeProject(cwd), id+".jsonl")
	line := `{"type":"user","message":{"role":"user","content":"` + prompt + `"},"uuid":"u-` + id +
		`","parentUuid":null,"sessionId":"` + id + `","cwd":"` + cwd + `","gitBranch":"old-topic","timestamp":"2025-06-01T10:00:00.000Z"}` + "\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// Written whole, then renamed into place: a sync watching the folder
	// (nativesync_test.go) never scans it half-written.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestNativeImportTargets: each session goes to the store of the deepest
// worktree it ran in; sessions of other projects to the worktree shown.
// Each is recorded under its store's branch, not the branch the agent
// recorded ("old-topic", no worktree of this project), which made a
// phantom group in the sidebar.
func TestNativeImportTargets(t *testing.T) {
	test.NewTempApp(t)
	dir := t.TempDir()
	main := Worktree{Dir: filepath.Join(dir, "repo"), Branch: "main", StorePath: filepath.Join(dir, "repo", StoreRelPath)}
	feat := Worktree{Dir: filepath.Join(dir, "repo", "worktrees", "feat"), Branch: "feat", StorePath: filepath.Join(dir, "repo", "worktrees", "feat", StoreRelPath)}
	projects := filepath.Join(dir, "projects")
	writeClaude(t, projects, "in-main", main.Dir, "main work")
	writeClaude(t, projects, "in-feat", filepath.Join(feat.Dir, "pkg"), "feature work")
	writeClaude(t, projects, "elsewhere", filepath.Join(dir, "other"), "other work")
	scan, err := native.Scan(context.Background(), native.Options{Dirs: native.Dirs{native.Claude: projects}})
	if err != nil {
		t.Fatal(err)
	}
	w := test.NewTempWindow(t, widget.NewLabel(""))
	pw := newWindowParts(&gui{ctx: context.Background()}, []Worktree{main, feat}, false)
	defer pw.close() // cancels ctx, closes the stores
	ni := &nativeImport{pw: pw, sessions: map[string]nativeTarget{}}
	ni.dlg = views.ShowNativeImport(w, ni)

	rows, err := ni.rows(scan)
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	for _, r := range rows {
		in[r.FirstPrompt] = r.InProject
		if r.State != "new" {
			t.Errorf("%s: state %q", r.FirstPrompt, r.State)
		}
	}
	if !in["main work"] || !in["feature work"] || in["other work"] {
		t.Errorf("in project: %v", in)
	}
	var keys []string
	for _, r := range rows {
		keys = append(keys, r.Key)
	}
	ni.mu.Lock()
	groups := ni.groups(keys)
	ni.mu.Unlock()
	summary := ni.run(pw.ctx, groups)
	if !strings.HasPrefix(summary, "Imported 3 new sessions with 3 events;") {
		t.Errorf("summary = %q", summary)
	}
	for _, tc := range []struct {
		wt    Worktree
		names string
	}{{main, "main work,other work"}, {feat, "feature work"}} {
		st, err := pw.store(tc.wt.StorePath)
		if err != nil {
			t.Fatal(err)
		}
		list, err := st.Sessions().List(pw.ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for i := len(list) - 1; i >= 0; i-- {
			names = append(names, list[i].Name)
			if list[i].Worktree != tc.wt.Branch {
				t.Errorf("%s has worktree %q, want %q", list[i].Name, list[i].Worktree, tc.wt.Branch)
			}
		}
		sort.Strings(names)
		if strings.Join(names, ",") != tc.names {
			t.Errorf("store of %s holds %v, want %s", tc.wt.Branch, names, tc.names)
		}
	}
	states := ni.states(groups)
	if len(states) != 3 {
		t.Errorf("states after the import: %v", states)
	}
	for k, st := range states {
		if st != "imported" {
			t.Errorf("after the import %s is %q", k, st)
		}
	}
}

func TestNativeSummary(t *testing.T) {
	res := []native.Result{
		{Agent: "claude", ID: "a", Outcome: native.Imported, Events: 4},
		{Agent: "codex", ID: "b", Outcome: native.Skipped, Reason: "cannot read it: permission denied"},
	}
	got := nativeSummary(res, context.Canceled)
	want := "Imported 1 new session with 4 events; appended 0 events to 0 sessions; 0 unchanged; 1 skipped.\n" +
		"Skipped codex b: cannot read it: permission denied\n" +
		"Cancelled: every session listed as imported is complete; import again to do the rest."
	if got != want {
		t.Errorf("nativeSummary = %q\nwant %q", got, want)
	}
}
