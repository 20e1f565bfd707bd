package views

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// SessionHeader is the header over the transcript: the session's title and
// context meter, its usage and permission mode, the link back to a
// sub-agent's parent, and the session's ref chips. MainView fills it, and
// the app sets its usage, mode and parent link through MainView.Header.
type SessionHeader struct {
	actions    Actions
	title      *widget.Label
	usage      *widget.Label     // tokens and cost of the session shown
	usageRef   SessionRef        // the session usage is about
	parentLink *tapText          // "↖ <parent>" on a sub-agent's session
	parentBox  *fyne.Container   // parentLink, centred; hidden as a whole
	mode       *widget.Button    // the session's permission mode; opens its settings
	archive    *ArchiveMark      // "Archived" and Unarchive (lifecycle.go)
	usageRow   *fyne.Container   // usage, ref chips, archive mark and mode (infoRowLayout)
	refs       *fyne.Container   // the session's ref chips
	refsRow    *container.Scroll // refs, scrolling sideways
	box        *fyne.Container   // the whole header
	// stored is set while a stored session is shown: its usage row is
	// then shown even before (or without) what it holds arrives, so the
	// tabs below never move when it does.
	stored bool

	shown    func() SessionRef // the session shown: what the setters are about
	relayout func()            // lays out again what sits below the header
}

// newSessionHeader returns the header around meter; its parent link and
// mode button send their intents to a, about the session shown() names.
func newSessionHeader(a Actions, meter *Meter, shown func() SessionRef) *SessionHeader {
	h := &SessionHeader{actions: a, shown: shown, relayout: func() {}, title: widget.NewLabel(""), usage: widget.NewLabel("")}
	h.title.TextStyle.Bold = true
	h.title.Truncation = fyne.TextTruncateEllipsis
	h.usage.Importance = widget.LowImportance
	h.usage.Truncation = fyne.TextTruncateEllipsis // the mode button beside it keeps its width
	h.usage.Hide()
	h.parentLink = newTapText("", func() { a.OpenParent(shown()) })
	h.parentBox = container.NewCenter(h.parentLink)
	h.parentBox.Hide()
	h.refs, h.refsRow = newRefsRow() // refsRow: refs, scrolling sideways; hidden without refs
	h.refsRow.Hide()
	h.mode = widget.NewButtonWithIcon("", theme.AccountIcon(), func() { a.EditPermissions(shown()) })
	h.mode.Importance = widget.LowImportance
	h.mode.Hide()
	h.archive = newArchiveMark(a, shown)
	h.archive.onSet = h.showUsageRow
	right := container.NewHBox(h.archive.box, h.mode)
	h.usageRow = container.New(&infoRowLayout{usage: h.usage, refs: h.refsRow, right: right, height: h.mode.MinSize().Height},
		h.usage, h.refsRow, right)
	h.usageRow.Hide()
	h.box = container.NewBorder(nil, widget.NewSeparator(), h.parentBox, nil, container.NewVBox(
		container.New(&sessionHeaderLayout{title: h.title, meter: meter}, h.title, meter), h.usageRow))
	return h
}

// showUsageRow shows the row of the usage, ref chips, archive mark and
// mode while a stored session is shown (stored), else when it has
// something: an empty row would still take the VBox's padding. The row is
// one button high whatever it holds, so the height of a stored session's
// header does not change when its usage, mode or chips arrive, and the
// tabs below stay where the user aims.
func (h *SessionHeader) showUsageRow() {
	h.usageRow.Hidden = !h.stored && h.usage.Hidden && h.mode.Hidden && h.archive.box.Hidden && len(h.refs.Objects) == 0
	h.usageRow.Refresh()
}

// minChipsWidth is the width the ref chips keep beside a long usage line.
const minChipsWidth = 160

// infoRowLayout lays out the header's second row, of a fixed height: the
// usage at the left (its full text while the chips keep minChipsWidth or
// half the rest, else truncated), the archive mark and the mode at the
// right at their own width, the ref chips between them, scrolling
// sideways.
type infoRowLayout struct {
	usage  *widget.Label
	refs   fyne.CanvasObject
	right  fyne.CanvasObject
	height float32
}

func (l *infoRowLayout) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	rw := l.right.MinSize().Width
	l.right.Move(fyne.NewPos(size.Width-rw, 0))
	l.right.Resize(fyne.NewSize(rw, size.Height))
	free := max(size.Width-rw-pad, 0)
	uw := float32(0)
	if l.usage.Visible() {
		// A little more than the text and its insets: the window's
		// renderer cut a label given exactly that.
		uw = fyne.MeasureText(l.usage.Text, theme.TextSize(), l.usage.TextStyle).Width + 2*theme.InnerPadding() + 2*pad
		if l.refs.Visible() { // leave the chips a few chips' width, or half
			uw = min(uw, max(free/2, free-minChipsWidth))
		}
		uw = min(uw, free)
	}
	l.usage.Move(fyne.NewPos(0, 0))
	l.usage.Resize(fyne.NewSize(uw, size.Height))
	l.refs.Move(fyne.NewPos(uw, 0))
	l.refs.Resize(fyne.NewSize(max(free-uw, 0), size.Height))
}

func (l *infoRowLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(l.right.MinSize().Width, l.height)
}

// setStored says whether a stored session is shown (see stored).
func (h *SessionHeader) setStored(stored bool) {
	h.stored = stored
	h.showUsageRow()
}

// SetUsage shows the tokens and cost of session ref in the header,
// e.g. "12.3k in · 450 out · 1.2M cache · ~$0.42"; it is dropped when
// another session is shown meanwhile.
func (h *SessionHeader) SetUsage(ref SessionRef, text string) {
	if h.shown() != ref {
		return
	}
	h.usageRef = ref
	h.usage.SetText(text)
	if text == "" {
		h.usage.Hide()
	} else {
		h.usage.Show()
	}
	h.showUsageRow()
	h.relayout() // the header's height changed: lay out what sits below it again
}

// SetParentLink shows, in the header of a sub-agent's session, a link
// back to the session that started it, named parent; "" hides it.
// Tapping it sends OpenParent for the session shown.
func (h *SessionHeader) SetParentLink(parent string) {
	if parent == "" {
		h.parentBox.Hide()
	} else {
		h.parentLink.setText("↖ " + parent)
		h.parentBox.Show()
	}
	h.relayout() // the header's height may have changed
}

// SetPermissionMode shows, in the header of session ref, its permission
// mode (e.g. "Ask"); "" hides it. Tapping it sends EditPermissions.
func (h *SessionHeader) SetPermissionMode(ref SessionRef, mode string) {
	if h.shown() != ref {
		return
	}
	if mode == "" {
		h.mode.Hide()
	} else {
		h.mode.SetText("Permissions: " + mode)
		h.mode.Show()
	}
	h.showUsageRow()
	h.relayout()
}

// PermissionMode returns the mode the header shows; "" when hidden.
func (h *SessionHeader) PermissionMode() string {
	if h.mode.Hidden {
		return ""
	}
	return strings.TrimPrefix(h.mode.Text, "Permissions: ")
}

// Usage returns the usage text of the header.
func (h *SessionHeader) Usage() string { return h.usage.Text }

// ParentLink returns the text of the link to the parent session; "" when
// it is hidden.
func (h *SessionHeader) ParentLink() string {
	if h.parentBox.Hidden {
		return ""
	}
	return h.parentLink.text.Text
}

// RefChips returns the chips' labels.
func (h *SessionHeader) RefChips() []string {
	var out []string
	for _, o := range h.refs.Objects {
		switch o := o.(type) {
		case *refChip:
			out = append(out, o.ref.Label())
		case *fyne.Container: // the count of those not shown
			out = append(out, o.Objects[0].(*canvas.Text).Text)
		}
	}
	return out
}

// TapRef taps chip i, as a click does.
func (h *SessionHeader) TapRef(i int) { h.refs.Objects[i].(*refChip).Tapped(nil) }
