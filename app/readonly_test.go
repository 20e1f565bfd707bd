package app

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/lazuli-app/lazuli/codec"
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
	inner.(interface{ TypedShortcut(fyne.Shortcut) }).TypedShortcut(shortcut(fyne.KeyW))
	if closed != 1 {
		t.Errorf("Ctrl+W closed the read-only window %d times, want once", closed)
	}
}
