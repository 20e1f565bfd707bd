package views

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

var testModes = []ModeChoice{{"bypass", "Bypass"}, {"acceptEdits", "Accept edits"}, {"plan", "Plan (read-only)"}, {"ask", "Ask"}}

// testParse reads "Tool" or "Tool(pattern)" as the agents package does,
// enough for the dialog's tests.
func testParse(action, spec string) (store.PermissionRule, error) {
	tool, pattern, _ := strings.Cut(strings.TrimSuffix(spec, ")"), "(")
	if tool == "" || strings.Contains(tool, " ") {
		return store.PermissionRule{}, errors.New("want Tool or Tool(pattern)")
	}
	return store.PermissionRule{Permission: tool, Pattern: pattern, Action: action}, nil
}

func testSpec(r store.PermissionRule) string {
	if r.Pattern == "" {
		return r.Permission
	}
	return r.Permission + "(" + r.Pattern + ")"
}

// TestPermissionSettingsDialog: the dialog shows the session's mode and
// rules and the project's (greyed), picks a mode, adds a rule as typed
// (a bad one is refused with the reason), removes one, says what Codex
// cannot apply, and Save hands back the edited permissions.
func TestPermissionSettingsDialog(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(900, 700))
	cur := store.Permissions{Rules: []store.PermissionRule{{Permission: "Bash", Pattern: "git *", Action: "allow", Source: "session"}}}
	var saved []store.Permissions
	p := ShowPermissionSettings(w, PermissionSettings{Title: "S3 fix", Modes: testModes, Current: cur, Inherited: "Bypass",
		ProjectRules: []store.PermissionRule{{Permission: "WebFetch", Action: "deny", Source: "project"}},
		Parse:        testParse, Spec: testSpec,
		AgentNotes: func(p store.Permissions) []string {
			var n []string
			for _, r := range p.Rules {
				n = append(n, testSpec(r))
			}
			return n
		}}, func(p store.Permissions) { saved = append(saved, p) })
	texts := func() string {
		var s []string
		for _, l := range objectsOf[*widget.Label](w.Canvas().Overlays().Top()) {
			s = append(s, l.Text)
		}
		return strings.Join(s, "\n")
	}
	for _, want := range []string{"S3 fix", "allow  Bash(git *)", "deny   WebFetch  (project)", "Not applied by every agent:\n• Bash(git *)"} {
		if !strings.Contains(texts(), want) {
			t.Errorf("the dialog lacks %q:\n%s", want, texts())
		}
	}
	if sel := objectsOf[*widget.Select](w.Canvas().Overlays().Top())[0].Selected; sel != "Project default (Bypass)" {
		t.Errorf("mode shown %q", sel)
	}
	p.SetMode("Ask")
	if msg := p.AddRule("deny", "Bad tool"); msg == "" {
		t.Errorf("a bad rule was accepted")
	}
	if msg := p.AddRule("deny", "Edit(src/**)"); msg != "" {
		t.Fatalf("AddRule: %s", msg)
	}
	p.RemoveRule(0)
	if !strings.Contains(p.CodexNote(), "Edit(src/**)") || strings.Contains(p.CodexNote(), "git") {
		t.Errorf("codex note %q does not follow the rules", p.CodexNote())
	}
	test.Tap(overlayButton(t, w.Canvas(), "Save"))
	if len(saved) != 1 || saved[0].Mode != "ask" || len(saved[0].Rules) != 1 || saved[0].Rules[0].Pattern != "src/**" ||
		saved[0].Rules[0].Source != "session" || saved[0].Rules[0].AddedAt == "" {
		t.Errorf("saved %+v", saved)
	}
}

// TestPermissionPromptDialog: Allow, Deny and Always allow answer once
// each; closing the dialog otherwise denies; Dismiss (the agent stopped
// waiting) answers nothing.
func TestPermissionPromptDialog(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(900, 700))
	p := PermissionPrompt{Session: "S3 fix", Tool: "Bash", Subject: "git push", Input: "{\n  \"command\": \"git push\"\n}"}
	for _, c := range []struct {
		button string
		want   PermissionChoice
	}{{"Allow", ChoiceAllow}, {"Deny", ChoiceDeny}, {"Always allow this", ChoiceAlways}} {
		var got []PermissionChoice
		ShowPermissionPrompt(w, p, func(ch PermissionChoice) { got = append(got, ch) })
		test.Tap(overlayButton(t, w.Canvas(), c.button))
		if !reflect.DeepEqual(got, []PermissionChoice{c.want}) {
			t.Errorf("%s answered %v", c.button, got)
		}
		if w.Canvas().Overlays().Top() != nil {
			t.Errorf("%s left the dialog open", c.button)
		}
	}
	var got []PermissionChoice
	d := ShowPermissionPrompt(w, p, func(ch PermissionChoice) { got = append(got, ch) })
	d.Dismiss()
	if len(got) != 0 || w.Canvas().Overlays().Top() != nil {
		t.Errorf("Dismiss answered %v", got)
	}
}

// TestHeaderPermissionMode: the header shows the session's mode and a tap
// asks for its settings; another session's mode is not shown, and no
// session shows none.
func TestHeaderPermissionMode(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	test.NewTempWindow(t, m.Content())
	ref := SessionRef{"/p/a.azs", 7}
	m.ShowSession(ref, store.Session{ID: 7, Name: "x", Worktree: "main"}, nil, nil, 0)
	m.Header().SetPermissionMode(SessionRef{"/p/a.azs", 8}, "Plan (read-only)")
	if m.Header().PermissionMode() != "" {
		t.Errorf("another session's mode shown")
	}
	m.Header().SetPermissionMode(ref, "Ask")
	if m.Header().PermissionMode() != "Ask" {
		t.Errorf("mode %q", m.Header().PermissionMode())
	}
	m.Header().SetUsage(ref, "123.4k in · 45.6k out · 1.2M cache · ~$12.34")
	m.Header().SetPermissionMode(ref, "Plan (read-only)")
	if min := m.Content().MinSize(); min.Width > MinWindowSize.Width || min.Height > MinWindowSize.Height {
		t.Errorf("with usage and mode the view needs %v, more than MinWindowSize %v", min, MinWindowSize)
	}
	test.Tap(m.head.mode)
	if len(a.calls) == 0 || a.calls[len(a.calls)-1] != "permissions /p/a.azs#7" {
		t.Errorf("calls %q", a.calls)
	}
	m.ClearSession()
	if m.Header().PermissionMode() != "" {
		t.Errorf("mode shown with no session")
	}
}

// TestPermissionSettingsFixedSize: adding rules, a refused rule's reason
// and Codex notes scroll inside the dialog; it neither grows nor
// recentres while being edited.
func TestPermissionSettingsFixedSize(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(900, 700))
	p := ShowPermissionSettings(w, PermissionSettings{Title: "S3 fix", Modes: testModes, Inherited: "Bypass",
		Parse: testParse, Spec: testSpec,
		AgentNotes: func(p store.Permissions) []string {
			var n []string
			for _, r := range p.Rules {
				n = append(n, testSpec(r))
			}
			return n
		}}, func(store.Permissions) {})
	d := fyne.CurrentApp().Driver()
	place := func() string {
		top := w.Canvas().Overlays().Top()
		var title, save fyne.CanvasObject
		for _, l := range objectsOf[*widget.Label](top) {
			if l.Text == "S3 fix" {
				title = l
			}
		}
		for _, b := range objectsOf[*widget.Button](top) {
			if b.Text == "Save" {
				save = b
			}
		}
		return fmt.Sprintf("title at %v, Save at %v", d.AbsolutePositionForObject(title), d.AbsolutePositionForObject(save))
	}
	before := place()
	for i := range 30 {
		if msg := p.AddRule("allow", fmt.Sprintf("Bash(tool%d *)", i)); msg != "" {
			t.Fatal(msg)
		}
		if got := place(); got != before {
			t.Fatalf("after %d rules: %s, want %s", i+1, got, before)
		}
	}
	if msg := p.AddRule("deny", "Bad tool"); msg == "" {
		t.Error("a bad rule was accepted")
	}
	if got := place(); got != before {
		t.Errorf("with an error shown: %s, want %s", got, before)
	}
}
