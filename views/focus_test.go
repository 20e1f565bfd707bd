package views

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// focusChain Tabs through c, from what is focused, until the focus comes
// back round (or stops), and returns the controls in the order reached;
// back is the same with Shift+Tab.
func focusChain(c fyne.Canvas, back bool) []fyne.Focusable {
	var chain []fyne.Focusable
	for range 500 {
		if back {
			c.FocusPrevious()
		} else {
			c.FocusNext()
		}
		f := c.Focused()
		if f == nil || slices.Contains(chain, f) {
			break
		}
		chain = append(chain, f)
	}
	return chain
}

// mouseOnly are the tappable objects the keyboard reaches another way:
// a list's and a tree's rows (through the list or tree), a scroll bar (the list's keys), a
// tree's expand icons (the tree's Left and Right), the Transcript and
// Files tabs (Ctrl+1, Ctrl+2 on the Session menu), the area around a
// dialog (a click there closes a pop-up: Esc or its buttons do).
var mouseOnly = []string{"*widget.listItem", "*widget.branch", "*widget.leaf", "*widget.scrollBarArea", "*widget.branchIcon", "*container.tabButton",
	"*widget.PopUp", "*widget.OverlayContainer"}

// checkFocusChain Tabs through what c shows (its top overlay when one is
// open): every enabled control it shows is reached, none keeps Tab (the
// desktop driver then types Tab into it: the keyboard is trapped), nothing
// is tappable without being reachable, and Shift+Tab goes back the same
// way. It returns the chain.
func checkFocusChain(t *testing.T, name string, c fyne.Canvas) []fyne.Focusable {
	t.Helper()
	root := c.Content()
	if top := c.Overlays().Top(); top != nil {
		root = top
	}
	chain := focusChain(c, false)
	if len(chain) == 0 {
		t.Fatalf("%s: Tab reaches nothing", name)
	}
	for _, o := range collectObjects[fyne.CanvasObject](root, true) {
		if d, ok := o.(fyne.Disableable); ok && d.Disabled() {
			continue
		}
		typ := fmt.Sprintf("%T", o)
		f, focusable := o.(fyne.Focusable)
		_, tappable := o.(fyne.Tappable)
		switch {
		case focusable && !slices.Contains(chain, f):
			t.Errorf("%s: Tab never reaches %s", name, describe(o))
		case !focusable && tappable && !slices.Contains(mouseOnly, typ):
			t.Errorf("%s: %s can be clicked but not reached from the keyboard", name, describe(o))
		}
	}
	for _, f := range chain {
		if tb, ok := f.(fyne.Tabbable); ok && tb.AcceptsTab() {
			t.Errorf("%s: %s keeps Tab: the keyboard cannot leave it", name, describe(f.(fyne.CanvasObject)))
		}
	}
	// Shift+Tab reaches the same controls in the reverse order (Fyne's
	// reverse walk visits a control holding others, a list, before them:
	// only the others' order is compared).
	back := focusChain(c, true)
	if len(back) != len(chain) {
		t.Errorf("%s: Shift+Tab reaches %s, Tab %s", name, describeAll(back), describeAll(chain))
	}
	fwd, rev := leaves(chain), leaves(back)
	slices.Reverse(fwd)
	if len(rev) > 0 {
		if i := slices.Index(fwd, rev[0]); i > 0 {
			fwd = append(fwd[i:], fwd[:i]...)
		}
	}
	if !slices.Equal(fwd, rev) {
		t.Errorf("%s: Shift+Tab goes %s, want the reverse of Tab: %s", name, describeAll(rev), describeAll(fwd))
	}
	return chain
}

// leaves are the controls of chain that hold no other control of it.
func leaves(chain []fyne.Focusable) []fyne.Focusable {
	var out []fyne.Focusable
	for _, f := range chain {
		holds := false
		for _, o := range collectObjects[fyne.CanvasObject](f.(fyne.CanvasObject), false) {
			if g, ok := o.(fyne.Focusable); ok && g != f && slices.Contains(chain, g) {
				holds = true
				break
			}
		}
		if !holds {
			out = append(out, f)
		}
	}
	return out
}

func describe(o fyne.CanvasObject) string {
	switch v := o.(type) {
	case *widget.Button:
		return fmt.Sprintf("button %q", v.Text)
	case *dialogButton:
		return fmt.Sprintf("button %q", v.Text)
	case *widget.Entry:
		return fmt.Sprintf("entry %q", v.PlaceHolder)
	case *keyEntry:
		return fmt.Sprintf("entry %q", v.PlaceHolder)
	case *tapText:
		if v.text != nil {
			return fmt.Sprintf("action %q", v.text.Text)
		}
	}
	return fmt.Sprintf("%T", o)
}

func describeAll[T any](fs []T) string {
	var s []string
	for _, f := range fs {
		s = append(s, describe(any(f).(fyne.CanvasObject)))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// TestMainWindowFocusChain Tabs through the main window: the sidebar's
// filter, buttons and session list, the transcript and its cards'
// actions, the prompt box; the list comes after the filter, as seen.
func TestMainWindowFocusChain(t *testing.T) {
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	m.Sidebar().Apply(sampleGroups())
	m.ShowSession(SessionRef{"/p/a.azs", 3}, sampleGroups()[0].Sessions[1], sampleEvents(t), nil, 0)
	chain := checkFocusChain(t, "main window", w.Canvas())
	s := m.Sidebar()
	filter, list := slices.Index(chain, fyne.Focusable(s.filters.entry)), slices.Index(chain, fyne.Focusable(s.list))
	switch {
	case list < 0:
		t.Errorf("Tab never reaches the session list: %s", describeAll(chain))
	case filter < 0 || filter > list:
		t.Errorf("the filter (%d) comes after the session list (%d): %s", filter, list, describeAll(chain))
	}
	for _, f := range []fyne.Focusable{m.Transcript().rows.list, m.PromptBox().entry} {
		if !slices.Contains(chain, f) {
			t.Errorf("Tab never reaches %s", describe(f.(fyne.CanvasObject)))
		}
	}
}

// TestDialogFocusChains opens each dialog of the window and Tabs through
// it.
func TestDialogFocusChains(t *testing.T) {
	test.NewTempApp(t)
	dialogs := []struct {
		name string
		show func(w fyne.Window)
	}{
		{"message", func(w fyne.Window) { ShowMessage(w, "Imported", "2 sessions") }},
		{"error", func(w fyne.Window) { ShowError(w, fmt.Errorf("bad")) }},
		{"store preview", func(w fyne.Window) {
			ShowStorePreview(w, StorePreview{Path: "/x/a.azs", Target: "main", CanMerge: true,
				Sessions: []store.Session{{ID: 1, Name: "plan"}}}, func() {}, func() {})
		}},
		{"saved", func(w fyne.Window) {
			ShowSaved(w, "Exported", "Saved", "/x/a.md", func(string) error { return nil }, nil)
		}},
		{"keyboard shortcuts", ShowShortcuts},
		{"export", func(w fyne.Window) {
			ShowExport(w, &fakeExportActions{}, ExportOptions{Ref: SessionRef{ID: 7}, Folder: t.TempDir()})
		}},
		{"import native history", func(w fyne.Window) { ShowNativeImport(w, &fakeNativeActions{}) }},
		{"permission prompt", func(w fyne.Window) {
			ShowPermissionPrompt(w, PermissionPrompt{Session: "S3", Tool: "Bash", Subject: "git push", Input: "{}"}, func(PermissionChoice) {})
		}},
		{"save policy", func(w fyne.Window) { ShowSavePolicy(w, SavePolicySettings{}, func(SavePolicySettings) {}) }},
		{"agent settings", func(w fyne.Window) {
			ShowAgentSettings(w, testAgentBackends, AgentSettings{}, nil, func(AgentSettings) {})
		}},
		{"team database", func(w fyne.Window) { ShowTeamSettings(w, "", func(string) {}) }},
		{"sidebar filters", func(w fyne.Window) {
			s := NewSidebar(&fakeActions{})
			w.SetContent(s.Content())
			s.filters.show()
		}},
		{"prompts outline", func(w fyne.Window) {
			tr := NewTranscript(&fakeActions{})
			w.SetContent(tr.Content())
			tr.SetSession(store.Session{ID: 1}, promptSession(), nil)
			tr.nav.ShowOutline(w)
		}},
	}
	for _, d := range dialogs {
		t.Run(d.name, func(t *testing.T) {
			w := test.NewTempWindow(t, widget.NewLabel("behind"))
			w.Resize(fyne.NewSize(1000, 700))
			d.show(w)
			if w.Canvas().Overlays().Top() == nil {
				t.Fatalf("%s: no dialog", d.name)
			}
			checkFocusChain(t, d.name, w.Canvas())
		})
	}
}

// TestSecondaryWindowFocusChains Tabs through the Insights, SQL console,
// Recent edits, Chronicle and Team windows.
func TestSecondaryWindowFocusChains(t *testing.T) {
	test.NewTempApp(t)
	windows := []struct {
		name    string
		content func(w fyne.Window) fyne.CanvasObject
	}{
		{"Insights", func(fyne.Window) fyne.CanvasObject {
			return NewInsightsView(&fakeInsights{}, []InsightScopeOption{{Label: "Project"}, {Label: "Session S2"}}).Content()
		}},
		{"SQL console", func(fyne.Window) fyne.CanvasObject {
			return NewSQLConsole(&fakeSQL{}, []SQLDoc{{"usage", "store, day"}}, []SQLExample{{"Cost", "SELECT 1"}}).Content()
		}},
		{"Recent edits", func(fyne.Window) fyne.CanvasObject { return NewRecentEditsView(&fakeRecent{}).Content() }},
		{"Chronicle", func(w fyne.Window) fyne.CanvasObject {
			return NewChronicleView(w, &chronicleIntents{}, "all", chronicleWriters).Object()
		}},
		{"Team", func(fyne.Window) fyne.CanvasObject {
			b := NewTeamBrowser(&teamRecorder{}, "")
			b.SetSessions([]TeamSession{{ID: 3, Repository: "app", Worktree: "main", Name: "fix"}})
			return b.Root
		}},
	}
	for _, sw := range windows {
		t.Run(sw.name, func(t *testing.T) {
			w := test.NewTempWindow(t, widget.NewLabel(""))
			w.SetContent(sw.content(w))
			w.Resize(fyne.NewSize(1100, 760))
			checkFocusChain(t, sw.name, w.Canvas())
		})
	}
}
