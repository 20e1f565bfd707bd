package views

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/store"
)

// fakeExportActions records the export requests and, when write is set,
// writes them as the app does (export.WriteFile) and answers the dialog.
type fakeExportActions struct {
	reqs  []ExportRequest
	d     *ExportDialog
	write func(w io.Writer) error
}

func (f *fakeExportActions) ExportSession(req ExportRequest) {
	f.reqs = append(f.reqs, req)
	if f.write == nil {
		return
	}
	if err := export.WriteFile(req.Path, req.Overwrite, f.write); err != nil {
		f.d.ExportFailed(err)
		return
	}
	f.d.Hide()
}

// exportSource is a session with, when leaky, an AWS key ID (built at run
// time) in a tool result and a prompt.
func exportSource(leaky bool) export.Source {
	key := "AK" + "IA" + "Q3EGRT7NBVWX5LZM"
	evs := []codec.Event{codec.UserMessage("Show the config"), codec.AssistantText("Here it is.")}
	if leaky {
		evs = append(evs,
			codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"cat config"}`)),
			codec.ToolResult("t1", "Bash", nil, "region = eu-west-1\naws_access_key_id = "+key, false),
			codec.UserMessage("is "+key+" still active?"))
	}
	stored := make([]store.StoredEvent, len(evs))
	for i, e := range evs {
		stored[i] = store.StoredEvent{Seq: int64(i + 1), Kind: e.Kind, Event: e}
	}
	return export.NewSource(store.Session{ID: 7, Name: "Config review", Worktree: "main"}, stored, nil)
}

// showTestExport opens the dialog on folder with a folder chooser that
// answers chosen ("" for a cancelled folder dialog).
func showTestExport(t *testing.T, folder, chosen string) (*ExportDialog, *fakeExportActions, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(900, 700))
	a := &fakeExportActions{}
	d := ShowExport(w, a, ExportOptions{Ref: SessionRef{StorePath: "/p/s.azs", ID: 7}, Folder: folder})
	a.d = d
	d.chooseFolder = func(dir string, done func(string)) {
		if dir != d.folder {
			t.Errorf("folder dialog opened in %q, want %q", dir, d.folder)
		}
		if chosen != "" {
			done(chosen)
		}
	}
	return d, a, w
}

// writeFile writes content to dir/name.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readFile returns the content of path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// renderOf writes the export of src in format f.
func renderOf(src export.Source, f export.Format) func(io.Writer) error {
	return func(w io.Writer) error { return export.Render(w, src, f) }
}

func TestExportDialogScanning(t *testing.T) {
	dir := t.TempDir()
	d, a, _ := showTestExport(t, dir, "")
	if !strings.Contains(d.status.Text, "Scanning") || !d.plain.Visible() || !d.plain.Disabled() || d.redact.Visible() || d.asIs.Visible() {
		t.Errorf("while scanning: status %q, plain visible %v disabled %v, redact %v, as is %v",
			d.status.Text, d.plain.Visible(), d.plain.Disabled(), d.redact.Visible(), d.asIs.Visible())
	}
	if d.folderText.Text != dir || d.name.Text != "S7.md" || d.name.Disabled() || d.browse.Disabled() {
		t.Errorf("while scanning: folder %q, name %q (disabled %v), browse disabled %v", d.folderText.Text, d.name.Text, d.name.Disabled(), d.browse.Disabled())
	}
	test.Tap(d.plain)
	d.onSubmit()
	if len(a.reqs) != 0 {
		t.Errorf("exported before the scan finished: %+v", a.reqs)
	}
}

func TestExportDialogClean(t *testing.T) {
	dir := t.TempDir()
	d, a, _ := showTestExport(t, dir, "")
	src := exportSource(false)
	d.SetScan(src, export.Scan(src))
	if !strings.HasPrefix(d.status.Text, "No secrets found") || d.plain.Disabled() || d.list.Visible() || d.reviewed.Visible() {
		t.Errorf("clean scan: status %q, plain disabled %v, list shown %v", d.status.Text, d.plain.Disabled(), d.list.Visible())
	}
	if d.title.Text != "S7 · Config review · 2 events" || d.name.Text != "S7-config-review.md" {
		t.Errorf("title = %q, name = %q", d.title.Text, d.name.Text)
	}
	d.format.SetSelected(formatLabel(export.HTML))
	if d.name.Text != "S7-config-review.html" {
		t.Errorf("name after choosing HTML = %q", d.name.Text)
	}
	test.Tap(d.plain)
	if len(a.reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(a.reqs))
	}
	r := a.reqs[0]
	if r.Format != export.HTML || r.Redact || r.Overwrite || r.Path != filepath.Join(dir, "S7-config-review.html") || len(r.Source.Events) != 2 {
		t.Errorf("request = %+v", r)
	}
	// Until the app answers, nothing can be changed or sent again.
	for name, w := range map[string]fyne.Disableable{"export": d.plain, "format": d.format, "browse": d.browse, "name": d.name, "cancel": d.cancel} {
		if !w.Disabled() {
			t.Errorf("%s enabled while the file is written", name)
		}
	}
	d.onExport(false)
	if len(a.reqs) != 1 {
		t.Errorf("sent again while writing: %d requests", len(a.reqs))
	}
	if len(dirNames(t, dir)) != 0 {
		t.Errorf("the dialog wrote in the folder itself: %v", dirNames(t, dir))
	}
}

func TestExportDialogFindings(t *testing.T) {
	d, a, _ := showTestExport(t, t.TempDir(), "")
	src := exportSource(true)
	rep := export.Scan(src)
	d.SetScan(src, rep)
	if !strings.HasPrefix(d.status.Text, "Found 1 possible secret (2 occurrences).") || d.plain.Visible() ||
		!d.redact.Visible() || d.redact.Disabled() || !d.asIs.Visible() || !d.asIs.Disabled() || !d.reviewed.Visible() {
		t.Fatalf("findings: status %q, plain %v, redact %v/%v, as is %v/%v", d.status.Text, d.plain.Visible(),
			d.redact.Visible(), d.redact.Disabled(), d.asIs.Visible(), d.asIs.Disabled())
	}
	if d.list.Length() != 1 {
		t.Fatalf("%d rows, want 1", d.list.Length())
	}
	row := d.createItem().(*findingRow)
	d.updateItem(0, row)
	if row.what.Text != "AWS access key ID" || row.preview.Text != "AKIA…(20 chars)" || row.where.Text != "S7 · #4 · Bash result, line 2 · and 1 more" {
		t.Errorf("row = %q | %q | %q", row.what.Text, row.preview.Text, row.where.Text)
	}

	// Export as is needs the review box.
	test.Tap(d.asIs)
	if len(a.reqs) != 0 {
		t.Fatalf("exported as is without the review: %+v", a.reqs)
	}
	test.Tap(d.reviewed)
	if d.asIs.Disabled() {
		t.Fatal("Export as is still disabled after the review")
	}
	test.Tap(d.asIs)
	d.ExportFailed(errors.New("disk full")) // the app's answer: the dialog is usable again
	if d.redact.Disabled() || d.asIs.Disabled() || d.name.Disabled() {
		t.Fatal("controls still disabled after a failed export")
	}
	d.onSubmit() // Enter in the file name: the highlighted button, Redact and export
	if len(a.reqs) != 2 || a.reqs[0].Redact || !a.reqs[1].Redact || a.reqs[1].Format != export.Markdown || len(a.reqs[1].Report.Findings) != 1 {
		t.Errorf("requests = %+v", a.reqs)
	}
}

// TestExportDialogFileName: a typed name is kept when the scan arrives and
// changes only its export extension with the format.
func TestExportDialogFileName(t *testing.T) {
	d, _, _ := showTestExport(t, t.TempDir(), "")
	d.name.SetText("review.md")
	src := exportSource(false)
	d.SetScan(src, export.Scan(src))
	for _, tc := range []struct {
		typed  string
		format export.Format
		want   string
	}{
		{"review.md", export.JSON, "review.json"},
		{"review.json", export.HTML, "review.html"},
		{"v1.2.markdown", export.JSON, "v1.2.json"},
		{"notes.txt", export.Markdown, "notes.txt"},
		{"notes", export.HTML, "notes"},
	} {
		d.name.SetText(tc.typed)
		if d.Format() == tc.format {
			t.Fatalf("%q: %s is already selected", tc.typed, tc.format)
		}
		d.format.SetSelected(formatLabel(tc.format))
		if d.name.Text != tc.want {
			t.Errorf("%q as %s: %q, want %q", tc.typed, tc.format, d.name.Text, tc.want)
		}
	}
}

// TestExportDialogChooseFolder: the folder chosen is where the file goes.
func TestExportDialogChooseFolder(t *testing.T) {
	other := t.TempDir()
	d, a, _ := showTestExport(t, t.TempDir(), other)
	test.Tap(d.browse)
	if d.folderText.Text != other {
		t.Errorf("folder shown = %q, want %q", d.folderText.Text, other)
	}
	src := exportSource(false)
	d.SetScan(src, export.Scan(src))
	test.Tap(d.plain)
	if len(a.reqs) != 1 || a.reqs[0].Path != filepath.Join(other, "S7-config-review.md") {
		t.Errorf("requests = %+v", a.reqs)
	}
}

// TestExportDialogFolderDialog: Choose folder… opens Fyne's folder dialog,
// which writes nothing.
func TestExportDialogFolderDialog(t *testing.T) {
	dir := t.TempDir()
	old := writeFile(t, dir, "S7-config-review.md", "old export\n")
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(900, 700))
	d := ShowExport(w, &fakeExportActions{}, ExportOptions{Ref: SessionRef{ID: 7}, Folder: dir})
	before := w.Canvas().Overlays().List()
	test.Tap(d.browse)
	if len(w.Canvas().Overlays().List()) != len(before)+1 {
		t.Errorf("no folder dialog: %d overlays, had %d", len(w.Canvas().Overlays().List()), len(before))
	}
	test.Tap(overlayButton(t, w.Canvas(), "Cancel"))
	if got := readFile(t, old); got != "old export\n" || !slices.Equal(dirNames(t, dir), []string{"S7-config-review.md"}) {
		t.Errorf("the folder dialog changed the folder: %q, %v", got, dirNames(t, dir))
	}
}

// TestExportDialogReplace: an existing file is replaced only after the
// user confirms, and stays as it was when the export then fails.
func TestExportDialogReplace(t *testing.T) {
	src := exportSource(false)
	for _, tc := range []struct {
		name    string
		answer  string // the button tapped in "Replace …?"
		fail    bool   // the export fails after the confirmation
		request bool
	}{
		{"cancel", "Cancel", false, false},
		{"replace", "Replace", false, true},
		{"replace, export fails", "Replace", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "S7-config-review.md", "old export\n")
			d, a, w := showTestExport(t, dir, "")
			a.write = renderOf(src, export.Markdown)
			if tc.fail {
				a.write = func(w io.Writer) error {
					_, _ = io.WriteString(w, "half of the new export")
					return errors.New("render: out of memory")
				}
			}
			d.SetScan(src, export.Scan(src))
			test.Tap(d.plain)
			if len(a.reqs) != 0 {
				t.Fatalf("exported over an existing file without asking: %+v", a.reqs)
			}
			if txt := overlayText(w.Canvas()); !strings.Contains(txt, "Replace S7-config-review.md?") || !strings.Contains(txt, "already exists in "+dir) {
				t.Errorf("confirmation says %q", txt)
			}
			if got := readFile(t, path); got != "old export\n" {
				t.Fatalf("the file changed before the confirmation: %q", got)
			}
			test.Tap(overlayButton(t, w.Canvas(), tc.answer))
			if len(a.reqs) != map[bool]int{false: 0, true: 1}[tc.request] || (tc.request && !a.reqs[0].Overwrite) {
				t.Fatalf("requests = %+v", a.reqs)
			}
			got := readFile(t, path)
			switch {
			case !tc.request || tc.fail:
				if got != "old export\n" {
					t.Errorf("old file = %q, want it untouched", got)
				}
			case !strings.Contains(got, "Show the config"):
				t.Errorf("replaced file = %q", got)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"S7-config-review.md"}) {
				t.Errorf("folder holds %v", names)
			}
			if tc.fail {
				if txt := overlayText(w.Canvas()); !strings.Contains(txt, "out of memory") {
					t.Errorf("error dialog says %q", txt)
				}
				if d.plain.Disabled() || d.name.Disabled() {
					t.Error("the dialog stays disabled after a failed export")
				}
			}
		})
	}
}

// TestExportDialogBadTarget: a missing folder, an empty name, a name with
// a slash or a folder's name send nothing and say why.
func TestExportDialogBadTarget(t *testing.T) {
	src := exportSource(false)
	for _, tc := range []struct {
		name, folder, file, want string
	}{
		{"missing folder", "gone", "x.md", "does not exist"},
		{"empty name", "", "  ", "Enter a file name."},
		{"slash", "", "sub/x.md", "cannot contain a slash"},
		{"dot dot", "", "..", "is not a file name"},
		{"folder", "", "sub", "sub is a folder in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			d, a, w := showTestExport(t, filepath.Join(dir, tc.folder), "")
			d.SetScan(src, export.Scan(src))
			d.name.SetText(tc.file)
			test.Tap(d.plain)
			if len(a.reqs) != 0 {
				t.Errorf("requests = %+v", a.reqs)
			}
			if txt := overlayText(w.Canvas()); !strings.Contains(txt, tc.want) {
				t.Errorf("message = %q, want %q", txt, tc.want)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"sub"}) {
				t.Errorf("folder holds %v", names)
			}
		})
	}
}

func TestExportDialogError(t *testing.T) {
	d, a, _ := showTestExport(t, t.TempDir(), "")
	d.SetError("The session could not be read: database is locked")
	if d.status.Text != "The session could not be read: database is locked" || !d.plain.Disabled() || d.progress.Visible() {
		t.Errorf("error: status %q, plain disabled %v", d.status.Text, d.plain.Disabled())
	}
	test.Tap(d.plain)
	if len(a.reqs) != 0 {
		t.Errorf("exported after an error: %+v", a.reqs)
	}
}
