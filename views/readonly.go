package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// A read-only window shows a store the user opened only to look at: it
// offers nothing that writes (no New, Rename, Delete, fork or prompt box),
// says so in a strip at the top, and has a Close button. Its permission
// settings open read-only (PermissionSettings.ReadOnly).

// SetReadOnly makes the view one of a store opened only to look at: why
// says why (e.g. "opened with File › Open read-only"), shown in a strip
// with a Close button that calls onClose. The sidebar's New, Rename and
// Delete, the prompt box, "Fork from here" and the header's Unarchive are
// gone.
func (m *MainView) SetReadOnly(why string, onClose func()) {
	m.readOnly = true
	m.sidebar.SetReadOnly(true)
	m.transcript.cards.readOnly = true
	m.prompt.Content().Hide()
	m.head.archive.button.Hide() // the mark stays: it says what the file holds
	text := "Read-only: nothing in this window writes to the file."
	if why != "" {
		text = "Read-only (" + why + "): nothing in this window writes to the file."
	}
	label := widget.NewLabel(text)
	label.Wrapping = fyne.TextWrapWord
	closeBtn := widget.NewButtonWithIcon("Close", theme.WindowCloseIcon(), onClose)
	m.readOnlyBar = container.NewBorder(nil, nil, widget.NewIcon(theme.InfoIcon()), closeBtn, label)
	m.top.Objects = append([]fyne.CanvasObject{m.readOnlyBar}, m.top.Objects...)
	m.top.Refresh()
	m.right.Refresh()
}

// ReadOnly reports whether SetReadOnly was called.
func (m *MainView) ReadOnly() bool { return m.readOnly }

// SetReadOnly hides (or shows again) the New, Rename and Delete buttons.
func (s *Sidebar) SetReadOnly(on bool) {
	s.buttons.Hidden = on
	s.root.Refresh()
}
