package views

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// fakeNativeActions records the dialog's intents.
type fakeNativeActions struct {
	imported [][]string
	cancels  int
}

func (f *fakeNativeActions) ImportNative(keys []string) { f.imported = append(f.imported, keys) }
func (f *fakeNativeActions) CancelNativeImport()        { f.cancels++ }

var nativeRows = []NativeRow{
	{Key: "claude/a", Agent: "claude", Project: "/w/proj", Started: time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC),
		Size: 17 << 10, FirstPrompt: "fix the build", State: "new", InProject: true, Subagents: 2},
	{Key: "claude/b", Agent: "claude", Project: "/w/proj", FirstPrompt: "add tests", State: "new lines", InProject: true},
	{Key: "codex/c", Agent: "codex", Project: "/w/proj/sub", FirstPrompt: "refactor", State: "imported", InProject: true},
	{Key: "claude/d", Agent: "claude", Project: "/w/proj", FirstPrompt: "next step", State: "own run", InProject: true},
	{Key: "claude/e", Agent: "claude", Project: "/elsewhere", FirstPrompt: "other project", State: "new"},
}

// showTestNativeImport opens the dialog with nativeRows.
func showTestNativeImport(t *testing.T) (*NativeImportDialog, *fakeNativeActions, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(1000, 700))
	a := &fakeNativeActions{}
	d := ShowNativeImport(w, a)
	if !strings.Contains(d.status.Text, "Looking for") || !d.importBtn.Disabled() {
		t.Errorf("while scanning: status %q, import enabled %v", d.status.Text, !d.importBtn.Disabled())
	}
	d.SetRows(nativeRows, []string{"codex history /h/.codex/sessions: no such folder"})
	return d, a, w
}

func TestNativeImportDefaultsAndImport(t *testing.T) {
	d, a, w := showTestNativeImport(t)
	if d.list.Length() != 4 {
		t.Errorf("%d rows listed, want the project's 4", d.list.Length())
	}
	if got := strings.Join(d.selectedKeys(), " "); got != "claude/a claude/b" {
		t.Errorf("checked by default: %s; want the project's new sessions", got)
	}
	if !strings.Contains(d.status.Text, "5 native sessions found, 4 in this project") || !strings.Contains(d.status.Text, "no such folder") {
		t.Errorf("status = %q", d.status.Text)
	}
	text := overlayText(w.Canvas())
	for _, want := range []string{"fix the build", "claude · ", "17.0 KiB · 2 sub-agents · /w/proj", "new lines", "own run"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog does not show %q:\n%s", want, text)
		}
	}
	test.Tap(d.showAll)
	if d.list.Length() != 5 || len(d.selectedKeys()) != 2 {
		t.Errorf("show all: %d rows, %d checked", d.list.Length(), len(d.selectedKeys()))
	}
	test.Tap(d.selectAll)
	if len(d.selectedKeys()) != 5 || d.importBtn.Text != "Import 5" {
		t.Errorf("select all: %v, button %q", d.selectedKeys(), d.importBtn.Text)
	}
	test.Tap(d.selectNone)
	if len(d.selectedKeys()) != 0 || !d.importBtn.Disabled() {
		t.Errorf("select none: %v, import enabled %v", d.selectedKeys(), !d.importBtn.Disabled())
	}
	ck := nativeRowCheck(t, d, "other project")
	test.TapAt(ck, fyne.NewPos(5, ck.Size().Height/2)) // the box is centred in the two-line row
	if d.importBtn.Text != "Import 1" {
		t.Errorf("after checking one row the button says %q", d.importBtn.Text)
	}
	test.Tap(d.importBtn)
	if len(a.imported) != 1 || strings.Join(a.imported[0], " ") != "claude/e" {
		t.Fatalf("ImportNative calls: %v", a.imported)
	}
	if d.cancelBtn.Hidden || !d.importBtn.Hidden || d.progress.Hidden || !d.closeBtn.Disabled() {
		t.Error("while importing: want Cancel and the progress bar, no Import, Close disabled")
	}
	d.SetProgress(1, 4, 512<<10, 1<<20)
	if d.progress.Value != 0.5 || !strings.Contains(d.status.Text, "1 of 4 transcript files, 512.0 KiB of 1.0 MiB") {
		t.Errorf("progress %v, status %q", d.progress.Value, d.status.Text)
	}
	test.Tap(d.cancelBtn)
	if a.cancels != 1 || !d.cancelBtn.Disabled() {
		t.Errorf("Cancel: %d calls", a.cancels)
	}
	d.SetStates(map[string]string{"claude/e": "imported"})
	if !strings.Contains(overlayText(w.Canvas()), "imported") || d.rows[4].State != "imported" {
		t.Error("SetStates did not show the new state")
	}
	d.Finish("Imported 1 new session with 3 events.")
	if d.status.Text != "Imported 1 new session with 3 events." || d.closeBtn.Disabled() || !d.cancelBtn.Hidden || !d.importBtn.Hidden {
		t.Errorf("after Finish: status %q", d.status.Text)
	}
	test.Tap(d.closeBtn)
	if top := w.Canvas().Overlays().Top(); top != nil && top.Visible() {
		t.Error("the dialog stays open after Close")
	}
}

// TestNativeImportSaysItsSubagents: the sessions checked are counted with
// their sub-agents, each of which becomes a session of its own, so that
// the import's count and the summary's agree.
func TestNativeImportSaysItsSubagents(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
		want string
	}{
		{"sessions and their sub-agents", []string{"claude/a", "claude/b"}, "Importing 2 sessions and their 2 sub-agents…"},
		{"one with its sub-agents", []string{"claude/a"}, "Importing 1 session and its 2 sub-agents…"},
		{"one without", []string{"claude/b"}, "Importing 1 session…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, a, _ := showTestNativeImport(t)
			d.checked = map[string]bool{}
			for _, k := range tc.keys {
				d.checked[k] = true
			}
			d.update()
			test.Tap(d.importBtn)
			if len(a.imported) != 1 || d.status.Text != tc.want {
				t.Errorf("Import %v: status %q, want %q", tc.keys, d.status.Text, tc.want)
			}
		})
	}
}

func TestNativeImportNothingInProject(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	d := ShowNativeImport(w, &fakeNativeActions{})
	d.SetRows(nativeRows[4:], nil)
	if !d.showAll.Checked || d.list.Length() != 1 || len(d.selectedKeys()) != 0 {
		t.Errorf("no session in the project: show all %v, %d rows, %d checked", d.showAll.Checked, d.list.Length(), len(d.selectedKeys()))
	}
	d.SetRows(nil, nil)
	if d.status.Text != "No native sessions found." {
		t.Errorf("status = %q", d.status.Text)
	}
	d.SetScanError("no native agent history found")
	if d.status.Text != "no native agent history found" || !d.importBtn.Hidden {
		t.Errorf("scan error: %q", d.status.Text)
	}
}

// nativeRowCheck returns the check box of the listed row whose title is title.
func nativeRowCheck(t *testing.T, d *NativeImportDialog, title string) *widget.Check {
	t.Helper()
	for _, c := range objectsOf[*fyne.Container](d.list) {
		if len(c.Objects) != 3 {
			continue
		}
		check, ok := c.Objects[1].(*widget.Check)
		text, ok2 := c.Objects[0].(*fyne.Container)
		if ok && ok2 && len(text.Objects) == 2 && text.Objects[0].(*widget.Label).Text == title {
			return check
		}
	}
	t.Fatalf("no row %q is shown", title)
	return nil
}

// TestNativeImportStatusPushesTheList: a summary longer than the status
// before it (the closing summary and the files skipped, a line each)
// moves the list down instead of being drawn over it.
func TestNativeImportStatusPushesTheList(t *testing.T) {
	d, _, _ := showTestNativeImport(t)
	bottom := func(o fyne.CanvasObject) float32 {
		return fyne.CurrentApp().Driver().AbsolutePositionForObject(o).Y + o.Size().Height
	}
	before := bottom(d.showAll)
	d.Finish("Imported 40 new sessions and their 4 sub-agents with 3,977 events; appended 0 events to 0 sessions; 0 unchanged; 2 skipped.\n" +
		"Skipped claude 4e27c414: it holds no conversation (no prompt, reply or tool call)\n" +
		"Skipped claude ff71dbed: it holds no conversation (no prompt, reply or tool call)")
	after := bottom(d.showAll)
	if after <= before {
		t.Errorf("the check box row ends at %v after a longer status, as before (%v)", after, before)
	}
	if top := fyne.CurrentApp().Driver().AbsolutePositionForObject(d.list).Y; top < after {
		t.Errorf("the list starts at %v, over the row above it that ends at %v", top, after)
	}
}
