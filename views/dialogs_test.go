package views

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// The drop dialog of a store lists its sessions, marks those already in
// the project, offers Merge only when the window can merge, and calls
// back with the choice.
func TestStorePreviewDialog(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	p := StorePreview{Path: "/tmp/other.azs", Size: 2048, Events: 7, Target: "main", CanMerge: true,
		Sessions:   []store.Session{{ID: 1, Name: "plan", Worktree: "main", EventCount: 3}, {ID: 2, Name: "fix", Worktree: "feat", EventCount: 4}},
		Duplicates: map[int64]int64{2: 5}}
	var opened, merged int
	ShowStorePreview(w, p, func() { opened++ }, func() { merged++ })
	txt := overlayText(w.Canvas())
	for _, want := range []string{"/tmp/other.azs\n2 sessions, 7 events, 2.0 KiB on disk; 1 looks like a duplicate",
		"plan  ·  main  ·  3 events\nfix  ·  feat  ·  4 events  ·  already in this project"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the dialog says %q, want %q in it", txt, want)
		}
	}
	test.Tap(overlayButton(t, w.Canvas(), "Merge into main"))
	if merged != 1 || opened != 0 {
		t.Errorf("Merge: merged %d, opened %d", merged, opened)
	}

	p.CanMerge = false
	ShowStorePreview(w, p, func() { opened++ }, func() { merged++ })
	if !overlayButton(t, w.Canvas(), "Merge into main").Disabled() {
		t.Error("Merge is enabled in a window that cannot merge")
	}
	test.Tap(overlayButton(t, w.Canvas(), "Open read-only"))
	if merged != 1 || opened != 1 {
		t.Errorf("Open read-only: merged %d, opened %d", merged, opened)
	}
}

// The saved note opens the file or its folder; when the opener fails the
// error goes to failed and the note stays.
func TestSavedDialog(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	var opened []string
	var failures []error
	fail := true
	open := func(target string) error {
		if fail {
			return errors.New("no opener")
		}
		opened = append(opened, target)
		return nil
	}
	ShowSaved(w, "Exported", "Saved S1", "/docs/s1.md", open, func(err error) { failures = append(failures, err) })
	test.Tap(overlayButton(t, w.Canvas(), "Show in folder"))
	if len(failures) != 1 || len(opened) != 0 {
		t.Fatalf("a failing opener: failures %v, opened %v", failures, opened)
	}
	if !strings.Contains(overlayText(w.Canvas()), "Saved S1") {
		t.Fatal("the note closed after the opener failed")
	}
	fail = false
	test.Tap(overlayButton(t, w.Canvas(), "Open"))
	if len(opened) != 1 || opened[0] != "/docs/s1.md" {
		t.Errorf("Open opened %v", opened)
	}
	if top := w.Canvas().Overlays().Top(); top != nil && top.Visible() {
		t.Error("the note stayed open after Open")
	}
}

// The file pickers open in the folder they are given (the project's
// worktree), not in HOME; a folder that is not there leaves the picker's
// own choice.
func TestFilePickersStartInFolder(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	test.NewTempApp(t)
	dir := filepath.Join(t.TempDir(), "project-worktree")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rollout-marker.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ask  func(w fyne.Window, dir string)
	}{
		{"open", func(w fyne.Window, dir string) { AskOpenFile(w, []string{".jsonl"}, dir, func(string, error) {}) }},
		{"save", func(w fyne.Window, dir string) {
			AskSaveFile(w, "session.azs", []string{".jsonl"}, dir, func(string, error) {})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := test.NewTempWindow(t, widget.NewLabel(""))
			w.Resize(fyne.NewSize(1000, 800))
			tc.ask(w, dir)
			if txt := overlayText(w.Canvas()); !strings.Contains(txt, "\nrollout-marker\n") {
				t.Errorf("AskFile(%q) shows %q, want the folder's files", dir, txt)
			}
			w.Canvas().Overlays().Top().Hide()
			tc.ask(w, filepath.Join(dir, "gone"))
			if w.Canvas().Overlays().Top() == nil {
				t.Error("no picker for a folder that is not there")
			}
		})
	}
}
