package app

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/views"
)

// TestReadOnlyWindow: a store opened only to look at gets a window that
// says so, whose menus offer no write (no New session, no import, no
// lifecycle marks), and that Ctrl+W closes.
func TestReadOnlyWindow(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "look only", []codec.Event{codec.UserMessage("hi")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	pw := newWindowParts(&gui{ctx: context.Background(), fa: fa}, []Worktree{wt}, true)
	pw.win = test.NewTempWindow(t, pw.mv.Content())
	defer pw.close()
	closed := 0
	pw.setupReadOnly("you chose Open read-only for sessions.azs", func() { closed++ })
	if !pw.mv.ReadOnly() {
		t.Error("the view is not read-only")
	}
	if ro, err := pw.store(wt.StorePath); err != nil || !ro.ReadOnly() {
		t.Errorf("the window's store: %v (read-only: %v)", err, err == nil && ro.ReadOnly())
	}
	var labels []string
	for _, m := range pw.win.MainMenu().Items {
		for _, it := range m.Items {
			labels = append(labels, it.Label)
		}
	}
	all := strings.Join(labels, "|")
	for _, w := range []string{"New session", "Import", "Pin", "Archive", "Compact", "Stop agent"} {
		if strings.Contains(all, w) {
			t.Errorf("the read-only menu offers %q: %s", w, all)
		}
	}
	if !strings.Contains(all, "Close window") {
		t.Errorf("no Close window in %s", all)
	}
	// The test canvas keeps its shortcuts in the software canvas it wraps.
	inner := reflect.ValueOf(pw.win.Canvas()).Elem().FieldByName("WindowlessCanvas").Interface()
	inner.(interface{ TypedShortcut(fyne.Shortcut) }).TypedShortcut(views.Shortcut(views.KeyCloseWindow))
	if closed != 1 {
		t.Errorf("Ctrl+W closed the read-only window %d times, want once", closed)
	}
}

// TestReadOnlyPermissions: a read-only window's permission settings are
// shown with every control disabled, say why in one line, and offer Close
// rather than a Save that would fail.
func TestReadOnlyPermissions(t *testing.T) {
	t.Setenv(project.ConfigDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	s, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "look only", []codec.Event{codec.UserMessage("hi")})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	pw := newWindowParts(&gui{ctx: context.Background(), fa: fa}, []Worktree{wt}, true)
	pw.win = test.NewTempWindow(t, pw.mv.Content())
	defer pw.close()
	pw.setupReadOnly("you chose Open read-only for sessions.azs", func() {})
	pw.perms.EditPermissions(views.SessionRef{StorePath: wt.StorePath, ID: s.ID})
	pw.wg.Wait()
	for _, sel := range overlayOf[*widget.Select](pw.win) {
		if !sel.Disabled() {
			t.Errorf("select %q is enabled", sel.Selected)
		}
	}
	if e := overlayOf[*widget.Entry](pw.win); len(e) == 0 || !e[0].Disabled() {
		t.Errorf("the rule entry is enabled or missing (%d entries)", len(e))
	}
	var buttons []string
	for _, b := range overlayOf[*widget.Button](pw.win) {
		if !b.Disabled() && b.Visible() { // a Form keeps hidden Submit and Cancel buttons
			buttons = append(buttons, b.Text)
		}
	}
	if got := strings.Join(buttons, "|"); got != "Close" {
		t.Errorf("enabled buttons %q, want only Close", got)
	}
	if txt := dialogText(pw.win); !strings.Contains(txt, readOnlyPermissions) {
		t.Errorf("the dialog does not say why: %q", txt)
	}
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	pw.shown.loadSession(ref, pw.shown.loadGen)
	pw.mv.Archive().Set(ref, true)
	for _, b := range widgetsOf[*widget.Button](pw.mv.Content()) {
		if b.Text == "Unarchive" && b.Visible() {
			t.Error("a read-only window offers Unarchive")
		}
	}
}
