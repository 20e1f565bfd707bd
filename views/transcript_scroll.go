package views

// rowScroll is the scrolling of a rowList to a row: the target row it
// keeps shown while the heights of the rows around it settle (flush
// scrolls to it again after each batch), and the part of a tall target
// to show. It is reached as rowList.scroll; -1 is no target.
type rowScroll struct {
	rows   *rowList
	target int     // the row to keep shown while heights settle; -1 for none
	frac   float32 // the part of target to show when it is taller than the view
}

// to shows row id and keeps it shown while the rows around it get
// their measured heights.
func (sc *rowScroll) to(id int) {
	sc.toMatch(id, 0)
}

// toMatch shows row id, and for a row taller than the view, the part
// at frac of its height (0: its top), a third of the way down the view:
// List.ScrollTo alone shows a tall row's end when it scrolls down.
func (sc *rowScroll) toMatch(id int, frac float32) {
	r := sc.rows
	sc.target, sc.frac = id, frac
	r.premeasureAround(id)
	r.list.ScrollTo(id)
	sc.showTarget()
}

// showTarget moves the view onto the target's part, when the target
// row is taller than the view, and onto the whole row otherwise: Fyne's
// List.ScrollTo compares the row's top plus the template height with the
// view, so a row whose top shows at the view's bottom stayed cut off.
func (sc *rowScroll) showTarget() {
	r := sc.rows
	id, view := sc.target, r.list.Size().Height
	if id < 0 || id >= len(r.heights) || view <= 0 {
		return
	}
	top, h := r.rowTop(id), r.heightOf(id)
	if h <= view {
		if off := r.list.GetScrollOffset(); top+h > off+view {
			r.list.ScrollToOffset(top + h - view)
		}
		return
	}
	off := top + sc.frac*h - view/3
	off = max(top, min(off, top+h-view))
	r.list.ScrollToOffset(off)
}
