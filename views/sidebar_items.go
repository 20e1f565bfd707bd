package views

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// sidebarItems are the sidebar list's items: their count, their template
// and binding one to a shown row (Sidebar.rows). It is reached as
// Sidebar.items.
type sidebarItems struct {
	s *Sidebar
}

// length is the count of the rows shown.
func (it *sidebarItems) length() int { return len(it.s.rows) }

// create is a row with, over it, the mark of the keyboard's row: an
// outline in the primary colour (the List's own, its hover colour, is
// too faint to find).
func (it *sidebarItems) create() fyne.CanvasObject {
	mark := canvas.NewRectangle(color.Transparent)
	mark.StrokeWidth = 2
	mark.CornerRadius = theme.SelectionRadiusSize()
	mark.Hide()
	return container.NewStack(newSidebarItem(), mark)
}

// update binds item o to shown row id, with the keyboard's mark when
// the list has the focus and id is its highlighted row.
func (it *sidebarItems) update(id widget.ListItemID, o fyne.CanvasObject) {
	s := it.s
	if id < 0 || id >= len(s.rows) {
		return
	}
	objs := o.(*fyne.Container).Objects
	objs[0].(*sidebarItem).update(&s.rows[id], s.now())
	mark := objs[1].(*canvas.Rectangle)
	if s.list.hasFocus && id == s.list.highlighted {
		mark.StrokeColor = theme.Color(theme.ColorNamePrimary)
		mark.Show()
	} else {
		mark.Hide()
	}
}
