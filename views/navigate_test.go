package views

import (
	"fmt"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// promptSession is five turns: a prompt, then a few replies each.
func promptSession() []store.StoredEvent {
	var evs []codec.Event
	for i := 1; i <= 5; i++ {
		evs = append(evs, codec.UserMessage(fmt.Sprintf("\nprompt %d\nmore", i)))
		for j := range 4 {
			evs = append(evs, codec.AssistantText(fmt.Sprintf("reply %d.%d", i, j)))
		}
	}
	return stored(evs...)
}

// TestPromptNavigation: NextPrompt and PreviousPrompt (and j, k on the
// transcript's list, Alt+Down and Alt+Up on the canvas) go from prompt to
// prompt, each shown at the view's top and outlined; past the ends they
// report false.
func TestPromptNavigation(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(600, 300))
	tr.SetSession(store.Session{ID: 1}, promptSession(), nil)
	q.drain()
	tr.rows.list.ScrollToTop()
	q.drain()
	var got []int
	for tr.nav.NextPrompt() {
		q.drain()
		got = append(got, tr.nav.row)
		if tr.find.row != tr.nav.row {
			t.Errorf("prompt row %d is not outlined (find row %d)", tr.nav.row, tr.find.row)
		}
	}
	if want := []int{5, 10, 15, 20}; !slices.Equal(got, want) {
		t.Fatalf("NextPrompt went to rows %v, want %v", got, want)
	}
	got = nil
	for tr.nav.PreviousPrompt() {
		q.drain()
		got = append(got, tr.nav.row)
	}
	if want := []int{15, 10, 5, 0}; !slices.Equal(got, want) {
		t.Fatalf("PreviousPrompt went to rows %v, want %v", got, want)
	}
	if off := tr.rows.list.GetScrollOffset(); off != 0 {
		t.Errorf("the first prompt is at offset %v, want 0", off)
	}
	tr.rows.list.TypedRune('j')
	tr.rows.list.TypedRune('j')
	if tr.nav.row != 10 {
		t.Errorf("j j went to row %d, want 10", tr.nav.row)
	}
	if off, top := tr.rows.list.GetScrollOffset(), tr.rows.rowOffset(10); off != top {
		t.Errorf("row 10 at offset %v, its top is %v", off, top)
	}
	tr.rows.list.TypedRune('k')
	if tr.nav.row != 5 {
		t.Errorf("k went to row %d, want 5", tr.nav.row)
	}
	// Alt+Down and Alt+Up, as the window's canvas binds them.
	c := &shortcutCanvas{Canvas: w.Canvas(), handlers: map[string]func(fyne.Shortcut){}}
	bindPromptKeys(c, tr.nav)
	c.handlers[PromptShortcuts.Next.ShortcutName()](PromptShortcuts.Next)
	if tr.nav.row != 10 {
		t.Errorf("Alt+Down went to row %d, want 10", tr.nav.row)
	}
	c.handlers[PromptShortcuts.Previous.ShortcutName()](PromptShortcuts.Previous)
	if tr.nav.row != 5 {
		t.Errorf("Alt+Up went to row %d, want 5", tr.nav.row)
	}
	test.TypeOnCanvas(w.Canvas(), "j")
	if tr.nav.row != 10 {
		t.Errorf("j with nothing focused went to row %d, want 10", tr.nav.row)
	}
}

// TestPromptOutline lists the prompts' first lines; choosing one scrolls
// there and closes the outline.
func TestPromptOutline(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(600, 400))
	tr.SetSession(store.Session{ID: 1}, promptSession(), nil)
	q.drain()
	items := tr.nav.PromptOutline()
	if len(items) != 5 || items[2] != (PromptOutlineItem{Seq: 11, Text: "prompt 3"}) {
		t.Fatalf("PromptOutline() = %+v", items)
	}
	tr.nav.ShowOutline(w)
	lists := objectsOf[*navList](w.Canvas().Overlays().Top())
	if len(lists) != 1 {
		t.Fatalf("the outline shows %d lists", len(lists))
	}
	lists[0].Select(3)
	q.drain()
	if tr.nav.row != 15 || w.Canvas().Overlays().Top() != nil {
		t.Errorf("choosing prompt 4 went to row %d (want 15), outline open: %v", tr.nav.row, w.Canvas().Overlays().Top() != nil)
	}
	if !tr.nav.ShowPromptAt(6) || tr.nav.row != 5 {
		t.Errorf("ShowPromptAt(6) went to row %d, want 5", tr.nav.row)
	}
}

// shortcutCanvas records the shortcuts added to it (the test canvas has
// no way to type one).
type shortcutCanvas struct {
	fyne.Canvas
	handlers map[string]func(fyne.Shortcut)
}

func (c *shortcutCanvas) AddShortcut(s fyne.Shortcut, h func(fyne.Shortcut)) {
	c.handlers[s.ShortcutName()] = h
}

// TestInterruptionNotAPrompt: Claude Code's "[Request interrupted by
// user…]" note is a muted line, not a prompt card: no fork, not in the
// outline, skipped by prompt navigation.
func TestInterruptionNotAPrompt(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 800))
	tr.SetSession(store.Session{ID: 1}, stored(
		codec.UserMessage("first"),
		codec.AssistantText("working"),
		codec.UserMessage("[Request interrupted by user for tool use]"),
		codec.UserMessage("[Request interrupted by user]"),
		codec.UserMessage("second"),
	), nil)
	q.drain()
	var got []string
	for _, it := range tr.Nav().PromptOutline() {
		got = append(got, it.Text)
	}
	if want := []string{"first", "second"}; !slices.Equal(got, want) {
		t.Errorf("PromptOutline() = %q, want %q", got, want)
	}
	cards := cardsByRow(tr)
	for _, id := range []int{2, 3} {
		c := cards[id]
		if c == nil {
			t.Fatalf("row %d has no card", id)
		}
		if c.title.Text != "Interrupted by the user" || c.forkBox.Visible() || (c.text != nil && c.text.Visible()) {
			t.Errorf("row %d: card %q (fork %v), want the muted line Interrupted by the user", id, c.title.Text, c.forkBox.Visible())
		}
	}
	tr.rows.list.ScrollToTop()
	q.drain()
	var rows []int
	for tr.nav.NextPrompt() {
		q.drain()
		rows = append(rows, tr.nav.row)
	}
	if want := []int{4}; !slices.Equal(rows, want) {
		t.Errorf("NextPrompt went to rows %v, want %v", rows, want)
	}
}
