package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// sessionHeader is the header over the transcript: the session's title and
// context meter, its usage and permission mode, the link back to a
// sub-agent's parent, and the session's ref chips. MainView fills it.
type sessionHeader struct {
	actions    Actions
	title      *widget.Label
	usage      *widget.Label   // tokens and cost of the session shown
	usageRef   SessionRef      // the session usage is about
	parentLink *tapText        // "↖ <parent>" on a sub-agent's session
	parentBox  *fyne.Container // parentLink, centred; hidden as a whole
	mode       *widget.Button  // the session's permission mode; opens its settings
	usageRow   *fyne.Container // usage and mode; hidden when both are
	refs       *fyne.Container // the session's ref chips
	refsRow    *container.Scroll
	box        *fyne.Container // the whole header
}

// newSessionHeader returns the header around meter; its parent link and
// mode button send their intents to a, about the session shown() names.
func newSessionHeader(a Actions, meter *Meter, shown func() SessionRef) *sessionHeader {
	h := &sessionHeader{actions: a, title: widget.NewLabel(""), usage: widget.NewLabel("")}
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
	h.usageRow = container.NewBorder(nil, nil, nil, h.mode, h.usage)
	h.usageRow.Hide()
	h.box = container.NewBorder(nil, widget.NewSeparator(), h.parentBox, nil, container.NewVBox(
		container.New(&sessionHeaderLayout{title: h.title, meter: meter}, h.title, meter), h.usageRow, h.refsRow))
	return h
}

// showUsageRow shows the row of the usage and the mode when either is
// shown: an empty row would still take the VBox's padding.
func (h *sessionHeader) showUsageRow() {
	if h.usage.Hidden && h.mode.Hidden {
		h.usageRow.Hide()
	} else {
		h.usageRow.Show()
	}
}
