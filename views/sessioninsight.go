package views

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/display"
)

// SessionInsightActions are the intents of the shown session's Files tab
// and ref chips.
type SessionInsightActions interface {
	// LoadFileDiffs asks for every change of a file of the session shown;
	// the app answers with MainView.SessionFiles().ShowDiffs.
	FileActions
	// OpenRef opens r.URL in the browser, or copies r.Value to the
	// clipboard when r has no address.
	OpenRef(r RefChip)
}

// RefChip is a pull request, issue, commit, branch or URL the session
// shown mentions (the insight index's refs).
type RefChip struct {
	Kind  string // pr, issue, commit, branch, url
	Value string // owner/repo#N, a hash, a branch name, a URL
	URL   string // where it opens; "" copies Value instead
}

// Label is the chip's text.
func (r RefChip) Label() string {
	switch r.Kind {
	case "pr":
		return "PR " + r.Value
	case "issue":
		return "Issue " + r.Value
	case "commit":
		return "Commit " + r.Value[:min(len(r.Value), 10)]
	case "branch":
		return "Branch " + r.Value
	}
	if u, err := url.Parse(r.Value); err == nil && u.Host != "" {
		s := u.Host + strings.TrimSuffix(u.EscapedPath(), "/")
		if n := []rune(s); len(n) > 40 {
			s = string(n[:39]) + "…"
		}
		return s
	}
	return r.Value
}

// TurnUsage is the usage of one turn of the session shown, for its
// completion row: the turn spans the events FirstSeq..LastSeq.
type TurnUsage struct {
	FirstSeq, LastSeq    int64
	Input, Output, Cache int64 // Cache: read and written
	CostUSD              float64
	Estimated            bool // the cost is (partly) estimated from the price table
}

// SessionInsight is what the insight index knows of the session shown.
type SessionInsight struct {
	Usage string // the header's usage line; "" for none
	Turns []TurnUsage
	Files []InsightFile
	Refs  []RefChip
}

// SetSessionInsight shows what the index knows of session ref: the usage
// line, each turn's tokens and cost on its completion row, the Files tab
// and the ref chips. It is dropped when another session is shown meanwhile.
func (m *MainView) SetSessionInsight(ref SessionRef, in SessionInsight) {
	if m.transcript.ref != ref {
		return
	}
	m.transcript.SetTurnUsage(in.Turns)
	m.files.SetFiles(in.Files)
	m.head.setRefs(in.Refs)
	m.head.SetUsage(ref, in.Usage) // lays the header out again
}

// SessionFiles returns the session's Files tab.
func (m *MainView) SessionFiles() *FilesPanel { return m.files }

// ShowFilesTab selects the Files tab (true) or the transcript.
func (m *MainView) ShowFilesTab(files bool) {
	if files {
		m.tabs.SelectIndex(1)
	} else {
		m.tabs.SelectIndex(0)
	}
}

// FilesTabShown reports whether the Files tab is selected.
func (m *MainView) FilesTabShown() bool { return m.tabs.SelectedIndex() == 1 }

// setRefs shows the session's ref chips; none hides their strip (not
// their row: see showUsageRow).
func (h *SessionHeader) setRefs(refs []RefChip) {
	// The chips go in at once: Container.Add lays the row out again for
	// every chip, which for a session of a thousand refs took seconds.
	shown := refs[:min(len(refs), maxRefChips)]
	chips := make([]fyne.CanvasObject, 0, len(shown)+1)
	for _, r := range shown {
		chips = append(chips, newRefChip(r, h.actions.OpenRef))
	}
	if more := len(refs) - len(shown); more > 0 {
		t := canvas.NewText(fmt.Sprintf("+%d more", more), theme.Color(theme.ColorNamePlaceHolder))
		t.TextSize = theme.Size(theme.SizeNameCaptionText)
		chips = append(chips, container.NewCenter(t))
	}
	h.refs.Objects = chips
	h.refs.Refresh()
	if len(refs) == 0 {
		h.refsRow.Hide()
	} else {
		h.refsRow.Show()
	}
	h.showUsageRow()
}

// maxRefChips is how many refs the header shows as chips; the rest are
// counted ("+12 more"; Insights and `lazuli refs` list them all).
const maxRefChips = 30

// refChip is a ref drawn as a rounded chip; tapping it sends OpenRef.
type refChip struct {
	tapText
	ref RefChip
	bg  *canvas.Rectangle
}

func newRefChip(r RefChip, open func(RefChip)) *refChip {
	c := &refChip{ref: r}
	c.text = canvas.NewText(r.Label(), theme.Color(theme.ColorNamePrimary))
	c.text.TextSize = theme.Size(theme.SizeNameCaptionText)
	c.onTap = func() { open(c.ref) }
	c.bg = canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	c.bg.CornerRadius = theme.Size(theme.SizeNameInputRadius)
	c.ExtendBaseWidget(c)
	return c
}

func (c *refChip) CreateRenderer() fyne.WidgetRenderer {
	return &chipRenderer{c: c, objects: []fyne.CanvasObject{c.bg, c.text}}
}

type chipRenderer struct {
	c       *refChip
	objects []fyne.CanvasObject
}

func (r *chipRenderer) pad() fyne.Size {
	p := theme.Size(theme.SizeNameInnerPadding)
	return fyne.NewSize(p, p/3)
}

func (r *chipRenderer) MinSize() fyne.Size {
	t, p := r.c.text.MinSize(), r.pad()
	return fyne.NewSize(t.Width+2*p.Width, t.Height+2*p.Height)
}

func (r *chipRenderer) Layout(size fyne.Size) {
	r.c.bg.Resize(size)
	p := r.pad()
	r.c.text.Move(fyne.NewPos(p.Width, p.Height))
	r.c.text.Resize(r.c.text.MinSize())
}

func (r *chipRenderer) Refresh() {
	r.c.text.Color = theme.Color(theme.ColorNamePrimary)
	r.c.bg.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.c.bg.CornerRadius = theme.Size(theme.SizeNameInputRadius)
	r.c.text.Refresh()
	r.c.bg.Refresh()
}

func (r *chipRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *chipRenderer) Destroy()                     {}

// newRefsRow is the chips' strip: scrolls sideways when they do not fit,
// one chip high whether it holds chips or not.
func newRefsRow() (*fyne.Container, *container.Scroll) {
	box := container.NewHBox()
	s := container.NewHScroll(container.NewVBox(layout.NewSpacer(), box, layout.NewSpacer())) // centred in the row's height
	s.SetMinSize(fyne.NewSize(0, newRefChip(RefChip{Value: "x"}, nil).MinSize().Height))
	return box, s
}

// setTurnUsage is Transcript.SetTurnUsage.
func (cs *cardSet) setTurnUsage(turns []TurnUsage) {
	turns = slices.Clone(turns)
	sort.Slice(turns, func(i, j int) bool { return turns[i].FirstSeq < turns[j].FirstSeq })
	if slices.Equal(turns, cs.turns) {
		return
	}
	cs.turns = turns
	cs.t.find.textChanged()
	cs.t.rows.changed(func(r *transcriptRow, _ int64) bool { return r.kind == rowComplete }) // their usage line
}

// turnUsageAt returns the usage of the turn holding seq.
func (cs *cardSet) turnUsageAt(seq int64) (TurnUsage, bool) {
	i := sort.Search(len(cs.turns), func(i int) bool { return cs.turns[i].FirstSeq > seq }) - 1
	if i < 0 || seq > cs.turns[i].LastSeq {
		return TurnUsage{}, false
	}
	return cs.turns[i], true
}

// usageText is a turn's tokens and cost on its completion row:
// "12.3k in · 450 out · 1.2M cache · ~$0.0421 (estimated)".
func (u TurnUsage) text() string {
	cost := fmt.Sprintf("$%.4f", u.CostUSD)
	if u.Estimated {
		cost = "~" + cost + " (estimated)"
	}
	return fmt.Sprintf("%s in · %s out · %s cache · %s", display.Short(u.Input), display.Short(u.Output), display.Short(u.Cache), cost)
}
