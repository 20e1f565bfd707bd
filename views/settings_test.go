package views

import (
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// testAgentBackends are the backends the settings tests show.
var testAgentBackends = []AgentBackend{
	{Name: "claude", Title: "Claude", Command: "claude", EnvVar: "LAZULI_CLAUDE"},
	{Name: "codex", Title: "Codex", Command: "codex", EnvVar: "LAZULI_CODEX"},
}

// paths is a settings value with the given name/path pairs.
func paths(kv ...string) AgentSettings {
	s := AgentSettings{Paths: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.Paths[kv[i]] = kv[i+1]
	}
	return s
}

// showTestSettings opens the agent settings dialog for cur in a window and
// returns the dialog's two path entries and where Save puts its value.
func showTestSettings(t *testing.T, cur AgentSettings, status []BackendStatus) (fyne.Window, []*widget.Entry, *[]AgentSettings) {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(800, 600))
	var saved []AgentSettings
	ShowAgentSettings(w, testAgentBackends, cur, status, func(s AgentSettings) { saved = append(saved, s) })
	entries := objectsOf[*widget.Entry](w.Canvas().Overlays().Top())
	if len(entries) != len(testAgentBackends) {
		t.Fatalf("the dialog has %d entries, want %d", len(entries), len(testAgentBackends))
	}
	return w, entries, &saved
}

// overlayRichText returns the texts of the rich texts in the top overlay.
func overlayRichText(c fyne.Canvas) string {
	var parts []string
	for _, rt := range objectsOf[*widget.RichText](c.Overlays().Top()) {
		parts = append(parts, rt.String())
	}
	return strings.Join(parts, "\n")
}

func TestAgentSettingsSave(t *testing.T) {
	w, entries, saved := showTestSettings(t, paths("claude", "/opt/claude"), codexMissing)
	if entries[0].Text != "/opt/claude" || entries[1].Text != "" {
		t.Errorf("entries = %q, %q; want the current settings", entries[0].Text, entries[1].Text)
	}
	text := overlayRichText(w.Canvas())
	for _, want := range []string{"LAZULI_CLAUDE", "LAZULI_CODEX", "PATH",
		"In use: claude 2.1.328 at /usr/bin/claude", "codex not found"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog does not say %q; it says:\n%s", want, text)
		}
	}
	browse := 0
	for _, b := range objectsOf[*widget.Button](w.Canvas().Overlays().Top()) {
		if b.Text == "Browse…" {
			browse++
		}
	}
	if browse != 2 {
		t.Errorf("%d Browse… buttons, want one per path", browse)
	}
	entries[0].SetText("")
	entries[1].SetText("  /home/me/bin/codex \n")
	test.Tap(overlayButton(t, w.Canvas(), "Save"))
	if len(*saved) != 1 || !reflect.DeepEqual((*saved)[0], paths("codex", "/home/me/bin/codex")) {
		t.Errorf("Save gave %+v, want only the trimmed codex path", *saved)
	}
	if top := w.Canvas().Overlays().Top(); top != nil && top.Visible() {
		t.Error("the dialog stays open after Save")
	}
}

func TestAgentSettingsCancel(t *testing.T) {
	w, entries, saved := showTestSettings(t, AgentSettings{}, nil)
	if !strings.Contains(overlayRichText(w.Canvas()), "Not checked yet") {
		t.Error("no status given, but the dialog does not say so")
	}
	entries[0].SetText("/x/claude")
	test.Tap(overlayButton(t, w.Canvas(), "Cancel"))
	if len(*saved) != 0 {
		t.Errorf("Cancel saved %+v", *saved)
	}
}

func TestAgentSettingsEnterSaves(t *testing.T) {
	w, entries, saved := showTestSettings(t, paths("codex", "/c"), backendsOK)
	if w.Canvas().Focused() != entries[0] {
		t.Errorf("focused %T, want the claude path", w.Canvas().Focused())
	}
	test.Type(entries[0], "/b/claude")
	entries[0].TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(*saved) != 1 || !reflect.DeepEqual((*saved)[0], paths("claude", "/b/claude", "codex", "/c")) {
		t.Errorf("Enter saved %+v", *saved)
	}
}

// TestAgentSettingsShareHistory: the project's history switch shows the
// current setting, says what it does, and Save returns it as toggled.
func TestAgentSettingsShareHistory(t *testing.T) {
	for _, cur := range []bool{false, true} {
		w, _, saved := showTestSettings(t, AgentSettings{ShareHistory: cur}, nil)
		var check *widget.Check
		for _, c := range objectsOf[*widget.Check](w.Canvas().Overlays().Top()) {
			if c.Text == historyLabel {
				check = c
			}
		}
		if check == nil || check.Checked != cur {
			t.Fatalf("switch %+v, want one checked %v", check, cur)
		}
		if !strings.Contains(overlayRichText(w.Canvas()), "lazuli mcp") {
			t.Error("the dialog does not say what the switch does")
		}
		test.Tap(check)
		test.Tap(overlayButton(t, w.Canvas(), "Save"))
		if len(*saved) != 1 || (*saved)[0].ShareHistory == cur {
			t.Errorf("Save gave %+v after toggling %v", *saved, cur)
		}
	}
}

func TestAgentSettingsOneFieldPerBackend(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(800, 600))
	many := append([]AgentBackend(nil), testAgentBackends...)
	for _, n := range []string{"gemini", "qwen", "opencode", "pi", "copilot"} {
		many = append(many, AgentBackend{Name: n, Title: strings.ToUpper(n), Command: n, EnvVar: "LAZULI_" + strings.ToUpper(n)})
	}
	var saved []AgentSettings
	ShowAgentSettings(w, many, paths("qwen", "/q"), nil, func(s AgentSettings) { saved = append(saved, s) })
	entries := objectsOf[*widget.Entry](w.Canvas().Overlays().Top())
	if len(entries) != len(many) {
		t.Fatalf("the dialog has %d entries, want one per backend (%d)", len(entries), len(many))
	}
	if entries[3].Text != "/q" || !strings.Contains(entries[2].PlaceHolder, "LAZULI_GEMINI") {
		t.Errorf("qwen entry %q, gemini placeholder %q", entries[3].Text, entries[2].PlaceHolder)
	}
	entries[2].SetText("/g ")
	test.Tap(overlayButton(t, w.Canvas(), "Save"))
	if len(saved) != 1 || !reflect.DeepEqual(saved[0], paths("gemini", "/g", "qwen", "/q")) {
		t.Errorf("Save gave %+v", saved)
	}
}
