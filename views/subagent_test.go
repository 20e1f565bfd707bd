package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestAgentCardOpensSubagentSession taps the Agent call's "open sub-agent"
// link: the views ask for that call's session; other calls have no link.
func TestAgentCardOpensSubagentSession(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 1500))
	tr := m.Transcript()
	q := &postQueue{}
	tr.rows.post = q.post
	events := stored(
		codec.UserMessage("take stock"),
		codec.ToolCall("toolu_agent", "Agent", nil, rawJSON(t, map[string]any{"description": "Inventory", "prompt": "List the files."})),
		codec.ToolCall("toolu_bash", "Bash", nil, rawJSON(t, map[string]any{"command": "ls"})),
	)
	m.ShowSession(SessionRef{"/p/a.azs", 4}, store.Session{ID: 4}, events, nil, 0)
	q.drain()
	cards := cardsByRow(tr)
	agent, bash := cards[1], cards[2]
	if agent == nil || bash == nil {
		t.Fatalf("cards not laid out: %v", cards)
	}
	if !agent.openBox.Visible() || bash.openBox.Visible() {
		t.Fatalf("open link shown on Agent %v, on Bash %v", agent.openBox.Visible(), bash.openBox.Visible())
	}
	test.Tap(agent.open)
	if got := a.String(); got != "subagent /p/a.azs#4 toolu_agent" {
		t.Fatalf("intents %q", got)
	}
}

// TestSubagentSessionLinksBackToParent shows the link to the parent in a
// sub-agent session's header; tapping it asks for the parent.
func TestSubagentSessionLinksBackToParent(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	m.ShowSession(SessionRef{"/p/a.azs", 5}, store.Session{ID: 5, Name: "S4 › List the files."}, nil, nil, 0)
	if m.Header().ParentLink() != "" {
		t.Fatalf("a link before the app set one: %q", m.Header().ParentLink())
	}
	m.Header().SetParentLink("S4")
	if m.Header().ParentLink() != "↖ S4" {
		t.Fatalf("parent link %q", m.Header().ParentLink())
	}
	test.Tap(m.head.parentLink)
	if got := a.String(); got != "parent /p/a.azs#5" {
		t.Fatalf("intents %q", got)
	}
	m.ShowSession(SessionRef{"/p/a.azs", 6}, store.Session{ID: 6}, nil, nil, 0)
	if m.Header().ParentLink() != "" {
		t.Fatalf("the link stayed on another session: %q", m.Header().ParentLink())
	}
}
