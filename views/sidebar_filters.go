package views

// The sidebar's filters beside the name filter: agent, model, status,
// date range and failed turns. Group headers count what the filters show.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The agents every filter lists; the others (Gemini CLI, Qwen Code, …)
// are listed once a session of theirs is known (SetFacets).
const (
	AgentClaude = "Claude"
	AgentCodex  = "Codex"
)

// SessionFacets are what the filters know of a session beyond its row:
// the agent and model it ran with ("" when unknown) and whether one of its
// turns failed.
type SessionFacets struct {
	Agent  string // the backend's title (AgentClaude, AgentCodex, "Gemini CLI", …) or ""
	Model  string
	Failed bool
}

// SidebarFilter selects sessions; its zero value selects all.
type SidebarFilter struct {
	Agent    string          // "" for any
	Model    string          // "" for any
	Statuses map[string]bool // the badges (●, ✓, ✗, ■, ○) shown; empty for all
	From, To time.Time       // created on or after From, before To's next day; zero for open
	Failed   bool            // only sessions with a failed turn
}

// active counts the filters set.
func (f SidebarFilter) active() int {
	n := 0
	for _, on := range []bool{f.Agent != "", f.Model != "", len(f.Statuses) > 0, !f.From.IsZero() || !f.To.IsZero(), f.Failed} {
		if on {
			n++
		}
	}
	return n
}

// keeps reports whether the filter shows row r with facets fc.
func (f SidebarFilter) keeps(r *sidebarRow, fc SessionFacets) bool {
	switch {
	case f.Agent != "" && fc.Agent != f.Agent,
		f.Model != "" && fc.Model != f.Model,
		len(f.Statuses) > 0 && !f.Statuses[r.badge],
		f.Failed && !fc.Failed:
		return false
	}
	if !f.From.IsZero() && (!r.createdOK || r.created.Before(f.From)) {
		return false
	}
	if !f.To.IsZero() && (!r.createdOK || !r.created.Before(f.To.AddDate(0, 0, 1))) {
		return false
	}
	return true
}

// sidebarFilters is the sidebar's filter bar: the name filter, and the
// Filters button that opens the other filters, with what it knows of the
// sessions (their facets) to offer and apply them.
type sidebarFilters struct {
	s      *Sidebar
	entry  *keyEntry       // the name filter: Down to the list, Enter opens the first match
	button *widget.Button  // opens the filters
	none   *fyne.Container // "No session matches …" and Clear, over the empty list
	noneL  *widget.Label
	filt   SidebarFilter
	facets map[SessionRef]SessionFacets
}

func newSidebarFilters(s *Sidebar) *sidebarFilters {
	fs := &sidebarFilters{s: s}
	fs.entry = newKeyEntry(false)
	fs.entry.SetPlaceHolder("Filter sessions")
	fs.entry.OnChanged = func(string) { s.applyFilter() }
	fs.entry.onKey = fs.onKey
	fs.entry.onShortcut = func(sc fyne.Shortcut) bool { return passToWindow(fs.entry, nil, sc) }
	fs.button = widget.NewButtonWithIcon("Filters", theme.ListIcon(), fs.show)
	fs.noneL = widget.NewLabel("")
	fs.noneL.Wrapping = fyne.TextWrapWord
	fs.noneL.Alignment = fyne.TextAlignCenter
	clearBtn := widget.NewButtonWithIcon("Clear", theme.ContentClearIcon(), fs.clear)
	fs.none = container.NewVBox(fs.noneL, container.NewCenter(clearBtn))
	fs.none.Hide()
	return fs
}

// onKey handles the filter's keys: Down moves the keyboard to the
// matching sessions (the first highlighted), Enter opens the first match,
// Esc clears the filter.
func (fs *sidebarFilters) onKey(ev *fyne.KeyEvent) bool {
	l := fs.s.list
	switch ev.Name {
	case fyne.KeyDown:
		if c := fyne.CurrentApp().Driver().CanvasForObject(l); c != nil && l.highlightFirst() {
			c.Focus(l)
			l.highlightFirst() // taking the focus highlighted the open session
		}
	case fyne.KeyReturn, fyne.KeyEnter:
		if id := l.next(-1, 1); id >= 0 {
			l.Select(id)
		}
	case fyne.KeyEscape:
		if fs.entry.Text == "" {
			return passToWindow(fs.entry, ev, nil)
		}
		fs.entry.SetText("")
	default:
		return false
	}
	return true
}

// clear empties the name filter and the filters.
func (fs *sidebarFilters) clear() {
	fs.entry.SetText("")
	fs.s.SetFilter(SidebarFilter{})
}

// showNone shows, in place of an empty list, that nothing matches the
// filters (none), with Clear.
func (fs *sidebarFilters) showNone(none bool) {
	if !none {
		fs.none.Hide()
		return
	}
	q := strings.TrimSpace(fs.entry.Text)
	switch {
	case q != "" && fs.filt.active() > 0:
		fs.noneL.SetText("No session matches “" + q + "” with the filters set")
	case q != "":
		fs.noneL.SetText("No session matches “" + q + "”")
	default:
		fs.noneL.SetText("No session matches the filters")
	}
	fs.none.Show()
}

// SetFacets gives the sidebar what it knows of the sessions' agents,
// models and failures, and shows the rows again.
func (s *Sidebar) SetFacets(f map[SessionRef]SessionFacets) {
	s.filters.facets = f
	for i := range s.all {
		s.all[i].agent = f[s.all[i].ref].Agent
	}
	s.applyFilter()
}

// SetFilter replaces the filters (the name filter stays).
func (s *Sidebar) SetFilter(f SidebarFilter) {
	fs := s.filters
	fs.filt = f
	fs.button.SetText(filtersLabel(f))
	if f.active() > 0 {
		fs.button.Importance = widget.HighImportance
	} else {
		fs.button.Importance = widget.MediumImportance
	}
	fs.button.Refresh()
	s.applyFilter()
}

// Filter returns the filters set.
func (s *Sidebar) Filter() SidebarFilter { return s.filters.filt }

func filtersLabel(f SidebarFilter) string {
	if n := f.active(); n > 0 {
		return "Filters (" + strconv.Itoa(n) + ")"
	}
	return "Filters"
}

// rows keeps the sessions of all that the name query q and the filters
// show, under the headers of their groups, each header counting them ("2
// of 5 sessions" while something is filtered out).
func (fs *sidebarFilters) rows(all []sidebarRow, q string) []sidebarRow {
	out := make([]sidebarRow, 0, len(all))
	header, total, shown := -1, 0, 0 // header: index in out of the group's header
	closeGroup := func() {
		if header < 0 {
			return
		}
		if shown == 0 {
			out = out[:header]
		} else if shown < total {
			out[header].msgs = strconv.Itoa(shown) + " of " + sessionCount(total)
		}
	}
	for i := range all {
		r := &all[i]
		if r.header {
			closeGroup()
			header, total, shown = len(out), 0, 0
			out = append(out, *r)
			continue
		}
		total++
		if (q == "" || strings.Contains(r.lower, q)) && fs.filt.keeps(r, fs.facets[r.ref]) {
			shown++
			out = append(out, *r)
		}
	}
	closeGroup()
	return out
}

// show opens the filters over the sidebar.
func (fs *sidebarFilters) show() {
	c := fyne.CurrentApp().Driver().CanvasForObject(fs.button)
	if c == nil {
		return
	}
	s := fs.s
	f := fs.filt
	agent := widget.NewSelect(fs.agentChoices(), nil)
	agent.SetSelected(cmpOr(f.Agent, "Any agent"))
	models := []string{"Any model"}
	for _, fc := range fs.facets {
		if fc.Model != "" && !slices.Contains(models, fc.Model) {
			models = append(models, fc.Model)
		}
	}
	slices.Sort(models[1:])
	model := widget.NewSelect(models, nil)
	model.SetSelected(cmpOr(f.Model, "Any model"))
	statusLabels := []string{"✓ completed", "✗ failed", "■ interrupted", "○ unknown", "● running"}
	status := widget.NewCheckGroup(statusLabels, nil)
	status.Horizontal = true
	for _, l := range statusLabels {
		if f.Statuses[strings.Fields(l)[0]] {
			status.Selected = append(status.Selected, l)
		}
	}
	from, to := widget.NewEntry(), widget.NewEntry()
	from.SetPlaceHolder("from YYYY-MM-DD")
	to.SetPlaceHolder("to YYYY-MM-DD")
	if !f.From.IsZero() {
		from.SetText(f.From.Format(time.DateOnly))
	}
	if !f.To.IsZero() {
		to.SetText(f.To.Format(time.DateOnly))
	}
	failed := widget.NewCheck("Only sessions with a failed turn", nil)
	failed.SetChecked(f.Failed)
	errLabel := widget.NewLabel("")
	errLabel.Importance = widget.DangerImportance
	errLabel.Hide()
	var pop *widget.PopUp
	apply := func() {
		nf := SidebarFilter{Failed: failed.Checked}
		if agent.Selected != "Any agent" {
			nf.Agent = agent.Selected
		}
		if model.Selected != "Any model" {
			nf.Model = model.Selected
		}
		for _, l := range status.Selected {
			if nf.Statuses == nil {
				nf.Statuses = map[string]bool{}
			}
			nf.Statuses[strings.Fields(l)[0]] = true
		}
		var err error
		if nf.From, err = parseDay(from.Text); err == nil {
			nf.To, err = parseDay(to.Text)
		}
		if err != nil {
			errLabel.SetText(err.Error())
			errLabel.Show()
			return
		}
		pop.Hide()
		s.SetFilter(nf)
	}
	clearBtn := widget.NewButton("Clear", func() {
		pop.Hide()
		s.SetFilter(SidebarFilter{})
	})
	ok := widget.NewButtonWithIcon("Apply", theme.ConfirmIcon(), apply)
	ok.Importance = widget.HighImportance
	body := container.NewVBox(
		widget.NewLabelWithStyle("Show sessions", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		agent, model, status, container.NewGridWithColumns(2, from, to), failed, errLabel,
		container.NewHBox(clearBtn, ok),
	)
	pop = widget.NewModalPopUp(body, c)
	pop.Show()
}

// parseDay reads "YYYY-MM-DD" (UTC, as sessions' times are); "" is zero.
func parseDay(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(time.DateOnly, s, time.UTC)
	if err != nil {
		return t, fmt.Errorf("%q is not a date: write YYYY-MM-DD", s)
	}
	return t, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Shown lists the sessions the sidebar shows, in order, with the agent
// each shows.
func (s *Sidebar) Shown() []ShownSession {
	var out []ShownSession
	for _, r := range s.rows {
		if !r.header {
			out = append(out, ShownSession{Ref: r.ref, Agent: r.agent})
		}
	}
	return out
}

// ShownSession is a session row of the sidebar.
type ShownSession struct {
	Ref   SessionRef
	Agent string
}

// agentChoices are the agent filter's entries: any, Claude, Codex, then
// every other agent a session is known to have used, sorted.
func (fs *sidebarFilters) agentChoices() []string {
	var more []string
	for _, fc := range fs.facets {
		if fc.Agent != "" && fc.Agent != AgentClaude && fc.Agent != AgentCodex && !slices.Contains(more, fc.Agent) {
			more = append(more, fc.Agent)
		}
	}
	slices.Sort(more)
	return append([]string{"Any agent", AgentClaude, AgentCodex}, more...)
}
