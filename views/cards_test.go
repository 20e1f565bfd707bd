package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// diffCardSession is one Edit with a changed line, an added line, a
// removed line and a line long enough to wrap.
func diffCardSession(t *testing.T) []store.StoredEvent {
	oldText := "func greet(name string) string {\n\tmsg := \"Hello, \" + name\n\tlog.Println(\"greeting\", name)\n\treturn msg\n}"
	newText := "func greet(name string) string {\n\tmsg := \"Goodbye, \" + name + \"!\"\n\treturn msg\n}\n\n// farewell is greet's counterpart, kept next to it so that the two stay in sync when the wording changes.\nfunc farewell() {}"
	return stored(codec.ToolCall("t1", "Edit", new("/src/greet.go"), rawJSON(t, map[string]any{
		"file_path": "/src/greet.go", "old_string": oldText, "new_string": newText,
	})))
}

func showDiffCard(t *testing.T, tr *Transcript, q *postQueue) {
	t.Helper()
	tr.SetSession(store.Session{ID: 1}, diffCardSession(t), nil)
	q.drain()
	if c := cardsByRow(tr)[0]; c == nil || cardBody(c) != "diff" {
		t.Fatal("the Edit card shows no diff")
	}
}

func TestDiffCardMarkup(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(560, 300))
	showDiffCard(t, tr, q)
	test.AssertRendersToMarkup(t, "diffcard.xml", w.Canvas())
}

func TestDiffCardImage(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(560, 300))
	fyne.CurrentApp().Settings().SetTheme(theme.DefaultTheme())
	showDiffCard(t, tr, q)
	test.AssertRendersToImage(t, "diffcard.png", w.Canvas())
}
