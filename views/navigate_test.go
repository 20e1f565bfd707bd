package views

import (
	"fmt"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// promptSession is five turns: a prompt, then a few replies each.
func promptSession() []store.StoredEvent {
	var evs []store.Event
	for i := 1; i <= 5; i++ {
		evs = append(evs, store.UserMessage(fmt.Sprintf("\nprompt %d\nmore", i)))
		for j := range 4 {
			evs = append(evs, store.AssistantText(fmt.Sprintf("reply %d.%d", i, j)))
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
	tr.list.ScrollToTop()
	q.drain()
	var got []int
	for tr.NextPrompt() {
		q.drain()
		got = append(got, tr.navRow)
		if tr.findRow != tr.navRow {
			t.Errorf("prompt row %d is not outlined (find row %d)", tr.navRow, tr.findRow)
		}
	}
	if want := []int{5, 10, 15, 20}; !slices.Equal(got, want) {
		t.Fatalf("NextPrompt went to rows %v, want %v", got, want)
	}
	got = nil
	for tr.PreviousPrompt() {
		q.drain()
		got = append(got, tr.navRow)
	}
	if want := []int{15, 10, 5, 0}; !slices.Equal(got, want) {
		t.Fatalf("PreviousPrompt went to rows %v, want %v", got, want)
	}
	if off := tr.list.GetScrollOffset(); off != 0 {
		t.Errorf("the first prompt is at offset %v, want 0", off)
	}
	tr.list.TypedRune('j')
	tr.list.TypedRune('j')
	if tr.navRow != 10 {
		t.Errorf("j j went to row %d, want 10", tr.navRow)
	}
	if off, top := tr.list.GetScrollOffset(), tr.rowOffset(10); off != top {
		t.Errorf("row 10 at offset %v, its top is %v", off, top)
	}
	tr.list.TypedRune('k')
	if tr.navRow != 5 {
		t.Errorf("k went to row %d, want 5", tr.navRow)
	}
	// Alt+Down and Alt+Up, as the window's canvas binds them.
	c := &shortcutCanvas{Canvas: w.Canvas(), handlers: map[string]func(fyne.Shortcut){}}
	bindPromptKeys(c, tr)
	c.handlers[PromptShortcuts.Next.ShortcutName()](PromptShortcuts.Next)
	if tr.navRow != 10 {
		t.Errorf("Alt+Down went to row %d, want 10", tr.navRow)
	}
	c.handlers[PromptShortcuts.Previous.ShortcutName()](PromptShortcuts.Previous)
	if tr.navRow != 5 {
		t.Errorf("Alt+Up went to row %d, want 5", tr.navRow)
	}
	test.TypeOnCanvas(w.Canvas(), "j")
	if tr.navRow != 10 {
		t.Errorf("j with nothing focused went to row %d, want 10", tr.navRow)
	}
}

// TestPromptOutline lists the prompts' first lines; choosing one scrolls
// there and closes the outline.
func TestPromptOutline(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(600, 400))
	tr.SetSession(store.Session{ID: 1}, promptSession(), nil)
	q.drain()
	items := tr.PromptOutline()
	if len(items) != 5 || items[2] != (PromptOutlineItem{Seq: 11, Text: "prompt 3"}) {
		t.Fatalf("PromptOutline() = %+v", items)
	}
	tr.ShowOutline(w)
	lists := objectsOf[*widget.List](w.Canvas().Overlays().Top())
	if len(lists) != 1 {
		t.Fatalf("the outline shows %d lists", len(lists))
	}
	lists[0].Select(3)
	q.drain()
	if tr.navRow != 15 || w.Canvas().Overlays().Top() != nil {
		t.Errorf("choosing prompt 4 went to row %d (want 15), outline open: %v", tr.navRow, w.Canvas().Overlays().Top() != nil)
	}
	if !tr.ShowPromptAt(6) || tr.navRow != 5 {
		t.Errorf("ShowPromptAt(6) went to row %d, want 5", tr.navRow)
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
