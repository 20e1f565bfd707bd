package views

// This file holds how the transcript measures its rows, keeps their
// heights and scrolls to a row or a match.

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/store"
)

// themeKey identifies the theme colours and text size cards were drawn with.
type themeKey struct {
	fg   color.Color
	text float32
}

func currentThemeKey() themeKey {
	return themeKey{theme.Color(theme.ColorNameForeground), theme.Size(theme.SizeNameText)}
}

// detailOf returns the detail of row id, computing it on first use.
func (t *Transcript) detailOf(id int) *rowDetail {
	r := &t.rows[id]
	if r.detail == nil {
		var e *store.Event
		if r.event >= 0 {
			e = &t.events[r.event].Event
		}
		r.detail = computeDetail(r.kind, e)
	}
	return r.detail
}

// toggle opens or closes a row's tool input or summary.
func (t *Transcript) toggle(id int) {
	r := &t.rows[id]
	r.open = !r.open
	r.version++
	t.widths[id] = 0
	t.list.RefreshItem(id)
}

// measure records the height card c needs for row id at the list's width,
// and schedules handing it to the list when it changed.
func (t *Transcript) measure(id int, c *card) {
	w := c.Size().Width
	if w <= 0 || t.widths[id] == w || t.installing {
		return
	}
	h := c.heightFor(w)
	t.widths[id] = w
	if h == t.heights[id] {
		delete(t.pending, id)
		return
	}
	t.pending[id] = h
	t.schedule()
}

func (t *Transcript) schedule() {
	if !t.scheduled && !t.flushing {
		t.scheduled = true
		t.post(t.flush)
	}
}

// flush gives the list the heights measured since the last flush, then
// keeps the view at the bottom, or on the find match, when it was there.
// Setting a height or scrolling re-lays the list out, which may measure
// more rows: the loop takes those too.
func (t *Transcript) flush() {
	t.scheduled = false
	if t.flushing {
		return
	}
	t.flushing = true
	bottom := t.atBottom()
	for round := 0; len(t.pending) > 0 && round < 8; round++ {
		batch := t.pending
		t.pending = make(map[int]float32)
		for id, h := range batch {
			if id < len(t.rows) {
				t.setHeight(id, h)
			}
		}
		switch {
		case bottom:
			t.list.ScrollToBottom()
		case t.target >= 0:
			t.list.ScrollTo(t.target)
			t.showTargetPart()
		}
	}
	if len(t.pending) == 0 {
		t.target = -1
	}
	t.flushing = false
	if len(t.pending) > 0 {
		t.schedule()
	}
}

// scrollTo shows row id and keeps it shown while the rows around it get
// their measured heights.
func (t *Transcript) scrollTo(id int) {
	t.scrollToMatch(id, 0)
}

// scrollToMatch shows row id, and for a row taller than the view, the part
// at frac of its height (0: its top), a third of the way down the view:
// List.ScrollTo alone shows a tall row's end when it scrolls down.
func (t *Transcript) scrollToMatch(id int, frac float32) {
	t.target, t.targetFrac = id, frac
	t.list.ScrollTo(id)
	t.showTargetPart()
}

// showTargetPart moves the view onto the target's part, when the target
// row is taller than the view, and onto the whole row otherwise: Fyne's
// List.ScrollTo compares the row's top plus the template height with the
// view, so a row whose top shows at the view's bottom stayed cut off.
func (t *Transcript) showTargetPart() {
	id, view := t.target, t.list.Size().Height
	if id < 0 || id >= len(t.heights) || view <= 0 {
		return
	}
	top, h := t.rowTop(id), t.heightOf(id)
	if h <= view {
		if off := t.list.GetScrollOffset(); top+h > off+view {
			t.list.ScrollToOffset(top + h - view)
		}
		return
	}
	off := top + t.targetFrac*h - view/3
	off = max(top, min(off, top+h-view))
	t.list.ScrollToOffset(off)
}

// heightOf is the height the list gives row id.
func (t *Transcript) heightOf(id int) float32 {
	if h := t.heights[id]; h > 0 {
		return h
	}
	return t.template
}

// onWidth re-measures the rows shown after the width changed.
func (t *Transcript) onWidth(w float32) {
	if w == t.width {
		return
	}
	t.width = w
	t.post(func() { t.list.Refresh() })
}

// atBottom reports whether the list shows its last row's end (or has not
// been laid out yet).
func (t *Transcript) atBottom() bool {
	view := t.list.Size().Height
	if view <= 0 {
		return true
	}
	return t.list.GetScrollOffset()+view >= t.contentHeight()-1
}

// contentHeight is the list's content height as the list computes it.
func (t *Transcript) contentHeight() float32 {
	if n := len(t.heights); n > 1 {
		return t.total + float32(n-1)*t.list.Theme().Size(theme.SizeNamePadding)
	}
	return t.total
}

// setHeight gives row id height h, in the list and in the total.
func (t *Transcript) setHeight(id int, h float32) {
	old := t.heights[id]
	if old == 0 {
		old = t.template
	}
	t.total += h - old
	t.heights[id] = h
	t.list.SetItemHeight(id, h)
}

// rowText is the plain text of row id, for Copy and find.
func (t *Transcript) rowText(id int) string {
	r := &t.rows[id]
	d := t.detailOf(id)
	if r.kind == rowCompaction {
		return t.compactions[r.comp].Summary
	}
	if r.kind == rowThinking {
		return t.events[r.event].Thinking[r.thought]
	}
	if r.kind == rowFailure {
		return t.events[r.event].RunFailures[r.thought]
	}
	e := &t.events[r.event].Event
	switch r.kind {
	case rowUser:
		return e.Content
	case rowAssistant:
		return e.Text
	case rowPlan:
		return "Plan: " + e.Name + "\n" + e.Content
	case rowTool, rowEdit, rowWrite:
		head := joinNonEmpty(" ", d.title, d.param)
		if len(d.diffs) > 0 {
			return head + "\n" + diffText(d.diffs)
		}
		return strings.TrimSuffix(head+"\n"+d.input, "\n")
	case rowResult:
		if full, ok := t.fullOf(id); ok && r.open {
			return full
		}
		return e.Content
	case rowComplete:
		return t.completeRowText(t.events[r.event].Seq, e)
	}
	return d.title
}

// widthWatcher lays its objects out to fill the container and reports
// width changes. When the height changes (the prompt box below grew) and
// pinned reports true before the resize, it calls toBottom after it, so
// that the end of the transcript stays in view.
type widthWatcher struct {
	onWidth  func(float32)
	pinned   func() bool
	toBottom func()
}

func (l *widthWatcher) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	pin := false
	if l.pinned != nil && len(objects) > 0 {
		if old := objects[0].Size(); old.Height > 0 && old.Height != size.Height {
			pin = l.pinned()
		}
	}
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	l.onWidth(size.Width)
	if pin {
		l.toBottom()
	}
}

func (l *widthWatcher) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objects {
		m = m.Max(o.MinSize())
	}
	return m
}
