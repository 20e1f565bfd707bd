package views

import "fyne.io/fyne/v2"

// builtCards keeps the cards rowList.premeasure bound and measured off
// screen, by row, until the list shows those rows: the list's slot for the
// row then takes the built card in place of its own, which becomes a spare
// for the next measure. Before, the list bound its own card to each row
// the measure had bound already, laying out and shaping all of its text a
// second time: on a first visit, the rows measured to open the session at
// its end are the rows it shows.
type builtCards struct {
	byRow map[int]*card
	spare []*card
}

// maxBuilt and maxSpare bound the cards kept: a measure goes a view's
// height above and below a row at the most (maxPremeasure rows).
const (
	maxBuilt = 2 * maxPremeasure
	maxSpare = 32
)

// card returns a card to measure row id with: the one built for it
// before, a spare, or a new one.
func (b *builtCards) card(t *Transcript, id int) *card {
	if c := b.byRow[id]; c != nil {
		delete(b.byRow, id)
		return c
	}
	if n := len(b.spare); n > 0 {
		c := b.spare[n-1]
		b.spare = b.spare[:n-1]
		return c
	}
	return newCard(t)
}

// keep records c, bound and measured, as row id's card.
func (b *builtCards) keep(id int, c *card) {
	if b.byRow == nil {
		b.byRow = map[int]*card{}
	}
	if len(b.byRow) >= maxBuilt {
		b.putSpare(c)
		return
	}
	b.byRow[id] = c
}

func (b *builtCards) putSpare(c *card) {
	if len(b.spare) < maxSpare {
		b.spare = append(b.spare, c)
	}
}

// drop forgets the cards built: the rows they were bound to are gone.
func (b *builtCards) drop() {
	for id, c := range b.byRow {
		b.putSpare(c)
		delete(b.byRow, id)
	}
}

// into puts the card built for row id, if there is one, in slot in place
// of the card it holds (which becomes a spare), and returns the slot's
// card. A built card bound to an older version of the row is bound again
// by the caller like any other.
func (b *builtCards) into(slot *fyne.Container, id int) *card {
	held := slot.Objects[0].(*card)
	c := b.byRow[id]
	if c == nil || c == held {
		return held
	}
	delete(b.byRow, id)
	slot.Objects[0] = c
	b.putSpare(held)
	if size := slot.Size(); !size.IsZero() {
		c.Move(fyne.Position{})
		c.Resize(size)
	}
	return c
}
