package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// buttonsOf returns the buttons under o that are shown (they and every
// object above them visible), by text.
func buttonsOf(o fyne.CanvasObject) map[string]*widget.Button {
	out := map[string]*widget.Button{}
	for _, b := range collectObjects[*widget.Button](o, true) {
		out[b.Text] = b
	}
	return out
}

// TestMainViewReadOnly: a window on a store opened only to look at offers
// no write (no New, Rename, Delete, prompt box, "Fork from here"), says it
// is read-only and why, and its Close button closes it.
func TestMainViewReadOnly(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	m.Sidebar().Apply(sampleGroups())
	closed := 0
	m.SetReadOnly("opened with File › Open read-only", func() { closed++ })
	m.ShowSession(SessionRef{"/p/a.azs", 3}, sampleGroups()[0].Sessions[1], sampleEvents(t), nil, 0)
	b := buttonsOf(m.Content())
	for _, name := range []string{"New", "Rename", "Delete", "Send"} {
		if b[name] != nil {
			t.Errorf("read-only window offers %s", name)
		}
	}
	if m.PromptBox().Content().Visible() || m.Transcript().cards.canFork() {
		t.Error("read-only window offers the prompt box or Fork from here")
	}
	found := false
	for _, l := range objectsOf[*widget.Label](m.Content()) {
		found = found || strings.Contains(l.Text, "Read-only (opened with File › Open read-only)")
	}
	if !found {
		t.Error("no read-only strip saying why")
	}
	if b["Close"] == nil {
		t.Fatal("no Close button")
	}
	test.Tap(b["Close"])
	if closed != 1 {
		t.Errorf("Close called onClose %d times", closed)
	}
	m.ShowFirstRun(&FirstRun{Project: "p", Native: 3}, nil)
	if m.FirstRunShown() {
		t.Error("a read-only window offers the first-run imports")
	}
}

type fakeFirstRun struct{ calls []string }

func (f *fakeFirstRun) ImportNativeHistory()  { f.calls = append(f.calls, "native") }
func (f *fakeFirstRun) ImportTranscriptFile() { f.calls = append(f.calls, "file") }
func (f *fakeFirstRun) StartSession()         { f.calls = append(f.calls, "start") }

// TestMainViewFirstRun: a project without sessions offers importing its
// native history (with the count found), a transcript file, or starting a
// session; without native history the import is off and says why.
func TestMainViewFirstRun(t *testing.T) {
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	f := &fakeFirstRun{}
	m.ShowFirstRun(&FirstRun{Project: "shop", Native: -1}, f)
	b := buttonsOf(m.Content())
	if nb := b["Looking for your agents' history…"]; nb == nil || !nb.Disabled() {
		t.Errorf("while counting: buttons %v", keys(b))
	}
	m.ShowFirstRun(&FirstRun{Project: "shop", Native: 12}, f)
	b = buttonsOf(m.Content())
	native := b["Import 12 sessions from your agents' history…"]
	if native == nil || native.Disabled() || b["Import a transcript file… (Ctrl+I)"] == nil || b["Start a session (Ctrl+N)"] == nil {
		t.Fatalf("buttons %v", keys(b))
	}
	if m.Transcript().empty.Visible() {
		t.Error("the panel is drawn over \"No session selected\"")
	}
	test.Tap(native)
	test.Tap(b["Import a transcript file… (Ctrl+I)"])
	test.Tap(b["Start a session (Ctrl+N)"])
	if got := strings.Join(f.calls, " "); got != "native file start" {
		t.Errorf("intents %q", got)
	}
	m.ShowFirstRun(&FirstRun{Project: "shop", Native: 0, NativeNote: "No agent session ran in this project's folders."}, f)
	b = buttonsOf(m.Content())
	if nb := b["Import your agents' history…"]; nb == nil || !nb.Disabled() || !m.firstRun.note.Visible() {
		t.Errorf("without history: buttons %v", keys(b))
	}
	m.ShowFirstRun(nil, nil)
	if m.FirstRunShown() || !m.Transcript().empty.Visible() {
		t.Error("hidden first-run panel still shown")
	}
}

// TestMainViewNewSession: a new session is shown before it exists: the
// prompt box sends to its ref (id 0), the sidebar selects nothing.
func TestMainViewNewSession(t *testing.T) {
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	m.Sidebar().Apply(sampleGroups())
	ref := SessionRef{StorePath: "/p/b.azs"}
	m.ShowNewSession(ref, "feature/login")
	if got, ok := m.PromptBox().Session(); !ok || got != ref {
		t.Errorf("prompt box sends to %v %v", got, ok)
	}
	if _, ok := m.Sidebar().selectedRow(); ok {
		t.Error("a sidebar row is selected")
	}
	if !strings.Contains(m.Transcript().empty.Text, "New session in feature/login") || !m.Transcript().empty.Visible() || m.head.title.Text != "New session · feature/login" {
		t.Errorf("shows %q / %q", m.Transcript().empty.Text, m.head.title.Text)
	}
}

func keys(m map[string]*widget.Button) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
