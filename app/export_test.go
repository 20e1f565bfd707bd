package app

import (
	"context"
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
	"github.com/lazuli-app/lazuli/views"
)

// exportWindow is a window over one worktree whose store holds the
// session "Deploy to staging", shown; leaky puts an AWS key ID (built at
// run time) in a tool result.
func exportWindow(t *testing.T, leaky bool) (*projectWindow, Worktree, views.SessionRef) {
	t.Helper()
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	// The first export goes to ~/Documents: here the worktree is that folder,
	// so that the tests see the store beside the exports.
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := filepath.Join(home, "Documents")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	wt := Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)}
	bg := context.Background()
	st, err := store.Open(bg, wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	events := []codec.Event{codec.UserMessage("Deploy the branch to staging"), codec.AssistantText("Deployed.")}
	if leaky {
		events = append(events,
			codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"cat ~/.aws/credentials"}`)),
			codec.ToolResult("t1", "Bash", nil, "aws_access_key_id = "+"AK"+"IA"+"Q3EGRT7NBVWX5LZM", false))
	}
	s, _, err := st.Sessions().CreateWithEvents(bg, "main", "Deploy to staging", events)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(1000, 760))
	pw := newWindowParts(&gui{ctx: bg, fa: fa}, []Worktree{wt}, false)
	pw.win = w
	t.Cleanup(pw.close)
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	pw.shown.current = ref
	return pw, wt, ref
}

// widgetsOf returns the objects of type T under o, walking the widgets'
// renderers.
func widgetsOf[T fyne.CanvasObject](o fyne.CanvasObject) []T {
	var out []T
	if o == nil {
		return out
	}
	if v, ok := o.(T); ok {
		out = append(out, v)
	} else if b, ok := o.(interface{ Base() *widget.Button }); ok { // a views dialog button
		if v, ok := any(b.Base()).(T); ok {
			out = append(out, v)
		}
	}
	switch c := o.(type) {
	case *fyne.Container:
		for _, k := range c.Objects {
			out = append(out, widgetsOf[T](k)...)
		}
	case fyne.Widget:
		for _, k := range test.WidgetRenderer(c).Objects() {
			out = append(out, widgetsOf[T](k)...)
		}
	}
	return out
}

// tapDialogButton taps the button labelled text in the dialog on top.
func tapDialogButton(t *testing.T, w fyne.Window, text string) {
	t.Helper()
	for _, b := range widgetsOf[*widget.Button](w.Canvas().Overlays().Top()) {
		if b.Text == text {
			if b.Disabled() {
				t.Fatalf("%q is disabled", text)
			}
			test.Tap(b)
			return
		}
	}
	t.Fatalf("no %q button in the dialog on top", text)
}

// dialogText returns the labels of the dialog on top.
func dialogText(w fyne.Window) string {
	var parts []string
	for _, l := range widgetsOf[*widget.Label](w.Canvas().Overlays().Top()) {
		parts = append(parts, l.Text)
	}
	return strings.Join(parts, "\n")
}

// folderNames lists dir.
func folderNames(t *testing.T, dir string) []string {
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

// TestExportDocumentReplace exports over an existing file in the folder
// the first export goes to: cancelled, failed, then confirmed. The
// old file is intact until the new one is complete.
func TestExportDocumentReplace(t *testing.T) {
	pw, wt, _ := exportWindow(t, false)
	path := filepath.Join(wt.Dir, "S1-deploy-to-staging.md")
	if err := os.WriteFile(path, []byte("old export\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	x := pw.exports.openExport(pw.shown.current)
	pw.wg.Wait() // the scan
	if txt := dialogText(pw.win); !strings.Contains(txt, "No secrets found") || !strings.Contains(txt, wt.Dir) {
		t.Fatalf("export dialog says %q", txt)
	}
	unchanged := func(when string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil || string(b) != "old export\n" {
			t.Fatalf("%s: old file = %q, %v", when, b, err)
		}
		if names := folderNames(t, wt.Dir); !slices.Equal(names, []string{".azureal", "S1-deploy-to-staging.md"}) {
			t.Fatalf("%s: worktree holds %v", when, names)
		}
	}

	tapDialogButton(t, pw.win, "Export")
	if txt := dialogText(pw.win); !strings.Contains(txt, "Replace S1-deploy-to-staging.md?") {
		t.Fatalf("no confirmation: %q", txt)
	}
	unchanged("asked to replace")
	tapDialogButton(t, pw.win, "Cancel")
	pw.wg.Wait()
	unchanged("cancelled")

	x.render = func(w io.Writer, _ export.Source, _ export.Format) error {
		_, _ = io.WriteString(w, "# half an export")
		return errors.New("render: out of memory")
	}
	tapDialogButton(t, pw.win, "Export")
	tapDialogButton(t, pw.win, "Replace")
	pw.wg.Wait()
	unchanged("export failed")
	if txt := dialogText(pw.win); !strings.Contains(txt, "out of memory") {
		t.Fatalf("error dialog says %q", txt)
	}
	if got := pw.ui.fa.Preferences().String(prefExportFolder); got != "" {
		t.Errorf("a failed export remembered its folder %q", got)
	}
	tapDialogButton(t, pw.win, "OK")

	x.render = nil // the export dialog stayed open: try again
	tapDialogButton(t, pw.win, "Export")
	tapDialogButton(t, pw.win, "Replace")
	pw.wg.Wait()
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "# Deploy to staging\n\n- **Session:** S1") || !strings.Contains(string(b), "Deploy the branch to staging") {
		t.Fatalf("replaced file = %q, %v", b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode = %v, %v; want the old 0600", fi.Mode(), err)
	}
	if txt := dialogText(pw.win); !strings.Contains(txt, "Saved S1 as Markdown to\n"+path) {
		t.Errorf("success says %q", txt)
	}
	p := pw.ui.fa.Preferences()
	if p.String(prefExportFolder) != wt.Dir || p.String(prefExportFormat) != "md" {
		t.Errorf("remembered folder %q, format %q", p.String(prefExportFolder), p.String(prefExportFormat))
	}
}

// TestExportDocumentRedacts: the findings are redacted in the file, which
// goes to the folder of the last export.
func TestExportDocumentRedacts(t *testing.T) {
	pw, wt, _ := exportWindow(t, true)
	last := t.TempDir()
	pw.ui.fa.Preferences().SetString(prefExportFolder, last)
	pw.ui.fa.Preferences().SetString(prefExportFormat, "json")
	pw.exports.openExport(pw.shown.current)
	pw.wg.Wait()
	if txt := dialogText(pw.win); !strings.Contains(txt, "Found 1 possible secret") || !strings.Contains(txt, last) {
		t.Fatalf("export dialog says %q", txt)
	}
	tapDialogButton(t, pw.win, "Redact and export")
	pw.wg.Wait()
	path := filepath.Join(last, "S1-deploy-to-staging.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc export.JSONDocument
	if err := json.Unmarshal(b, &doc); err != nil || doc.Redactions != 1 || strings.Contains(string(b), "Q3EGRT7NBVWX5LZM") ||
		!strings.Contains(string(b), export.RedactedMark("aws-access-key-id")) {
		t.Errorf("export: %d redactions, %v:\n%s", doc.Redactions, err, b)
	}
	if txt := dialogText(pw.win); !strings.Contains(txt, "Redacted 1 possible secret (1 occurrence).") {
		t.Errorf("success says %q", txt)
	}
	if names := folderNames(t, wt.Dir); !slices.Equal(names, []string{".azureal"}) {
		t.Errorf("worktree holds %v", names)
	}
}

// TestExportDocumentAppeared: a file that appears after the dialog checked
// the name is not replaced.
func TestExportDocumentAppeared(t *testing.T) {
	pw, wt, ref := exportWindow(t, false)
	x := pw.exports.openExport(ref)
	pw.wg.Wait()
	path := filepath.Join(wt.Dir, "late.md")
	if err := os.WriteFile(path, []byte("someone else's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := export.NewSource(store.Session{ID: ref.ID, Name: "Deploy to staging"}, nil, nil)
	x.ExportSession(views.ExportRequest{Source: src, Format: export.Markdown, Path: path})
	pw.wg.Wait()
	if b, err := os.ReadFile(path); err != nil || string(b) != "someone else's\n" {
		t.Fatalf("file = %q, %v", b, err)
	}
	if txt := dialogText(pw.win); !strings.Contains(txt, "late.md appeared in "+wt.Dir+" meanwhile") {
		t.Errorf("error says %q", txt)
	}
}

// TestExportFolder: the last folder while it exists, else Documents, else
// home; never the worktree.
func TestExportFolder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ex := &exporter{}
	last := t.TempDir()
	if got := ex.exportFolder(last); got != last {
		t.Errorf("exportFolder(%q) = %q, want it", last, got)
	}
	if got := ex.exportFolder(filepath.Join(last, "gone")); got != home {
		t.Errorf("exportFolder(gone) = %q, want home %q", got, home)
	}
	docs := filepath.Join(home, "Documents")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ex.exportFolder(""); got != docs {
		t.Errorf("exportFolder(\"\") = %q, want %q", got, docs)
	}
}
