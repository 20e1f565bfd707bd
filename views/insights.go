package views

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/store"
)

// InsightScope is what the Insights window sums: the project (Store ""),
// one worktree's store, or one session of it.
type InsightScope struct {
	Store   string
	Session int64
}

// InsightScopeOption is a scope offered in the window's scope menu.
type InsightScopeOption struct {
	Label string
	Scope InsightScope
}

// InsightDay is one day's figures (or the totals). The window marks the
// cost estimated by InsightData.CostEstimated.
type InsightDay struct {
	Day             string
	Sessions, Turns int64
	store.Tokens
}

// Add adds o's figures (not its Day) to d.
func (d *InsightDay) Add(o InsightDay) {
	d.Sessions += o.Sessions
	d.Turns += o.Turns
	d.Tokens.Add(o.Tokens)
}

// InsightShare is one row of a breakdown (by model, backend, worktree).
type InsightShare struct {
	Key      string
	Sessions int64
	Tokens   int64
	CostUSD  float64
}

// InsightTool is a tool's calls and errors.
type InsightTool struct {
	Name          string
	Calls, Errors int64
}

// InsightFile is a file a session touched with one action.
type InsightFile struct {
	Store     string
	SessionID int64
	Path      string
	Action    string
	Count     int64
}

// InsightData is everything the window shows for one scope and range.
type InsightData struct {
	Days                        []InsightDay // every day of the range, oldest first
	Heat                        [7][24]int64 // sessions started, Monday first, UTC hours
	Models, Backends, Worktrees []InsightShare
	Tools                       []InsightTool
	Files                       []InsightFile // the Files tab: the newest of each store
	FilesLimited                bool          // Files holds only the newest of some store's
	TopFiles                    []InsightFile // the most touched paths (Path and Count), most first
	Total                       InsightDay
	CostEstimated               bool
	// Range is the days the data covers (0: all time): the range the app
	// chose when asked for InsightAutoRange.
	Range int
}

// FileDiff is one change of a file in a session: the diff of one tool call.
type FileDiff struct {
	Seq   int64
	Tool  string
	Files []editdiff.File
}

// InsightsActions are the window's intents; app implements them and
// answers with SetData and ShowDiffs (on the Fyne goroutine).
type InsightsActions interface {
	LoadInsights(scope InsightScope, days int)
	FileActions
}

// insightRanges are the range choices and their days (0: all time).
var insightRanges = []struct {
	label string
	days  int
}{{"7 days", 7}, {"30 days", 30}, {"90 days", 90}, {"All time", 0}}

// InsightRangeDays are the days of the window's range choices, shortest
// first (0: all time).
var InsightRangeDays = []int{7, 30, 90, 0}

// InsightAutoRange is the days the window asks for first: the app
// chooses the range (InsightData.Range), one that holds the sessions.
const InsightAutoRange = -1

// InsightsView is the content of the Insights window.
type InsightsView struct {
	a      InsightsActions
	scopes []InsightScopeOption
	scope  InsightScope
	days   int
	data   InsightData

	root                         fyne.CanvasObject
	totals                       *widget.Label
	cost, tokens, sessions, turn *BarChart
	heat                         *Heatmap
	readout                      *widget.Label
	models, backends, worktrees  *fyne.Container
	tools, topFiles              *fyne.Container
	files                        *FilesPanel
	tabs                         *container.AppTabs
	rangeSel                     *widget.RadioGroup
	showingRange                 bool // rangeSel is being set to the data's range
}

// NewInsightsView builds the view; it asks a for the first scope's data.
func NewInsightsView(a InsightsActions, scopes []InsightScopeOption) *InsightsView {
	v := &InsightsView{a: a, scopes: scopes, days: InsightAutoRange}
	v.readout = widget.NewLabel("")
	v.totals = widget.NewLabel("")
	v.totals.Wrapping = fyne.TextWrapWord
	money := func(f float64) string { return fmt.Sprintf("$%.2f", f) }
	count := func(f float64) string { return display.Count(int64(f)) }
	v.cost = NewBarChart([]string{"cost"}, money, v.readout)
	v.tokens = NewBarChart([]string{"input", "output", "cache read", "cache write"}, count, v.readout)
	v.sessions = NewBarChart([]string{"sessions"}, count, v.readout)
	v.turn = NewBarChart([]string{"turns"}, count, v.readout)
	v.heat = NewHeatmap(v.readout)
	v.models, v.backends, v.worktrees = container.NewVBox(), container.NewVBox(), container.NewVBox()
	v.tools, v.topFiles = container.NewVBox(), container.NewVBox()

	labels := make([]string, len(scopes))
	for i, s := range scopes {
		labels[i] = s.Label
	}
	scopeSel := widget.NewSelect(labels, func(l string) {
		for _, s := range scopes {
			if s.Label == l {
				v.scope = s.Scope
			}
		}
		v.reload()
	})
	rangeLabels := make([]string, len(insightRanges))
	for i, r := range insightRanges {
		rangeLabels[i] = r.label
	}
	v.rangeSel = widget.NewRadioGroup(rangeLabels, func(l string) {
		if v.showingRange {
			return // the range of data shown, not the user's choice
		}
		for _, r := range insightRanges {
			if r.label == l {
				v.days = r.days
			}
		}
		v.reload()
	})
	v.rangeSel.Horizontal = true
	v.rangeSel.Required = true

	chart := func(title string, c fyne.CanvasObject) fyne.CanvasObject {
		l := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		l.Truncation = fyne.TextTruncateEllipsis // a long title does not widen the window past 800 px
		return container.NewBorder(l, nil, nil, nil, c)
	}
	overview := container.NewVScroll(container.NewVBox(
		container.NewGridWithColumns(2,
			chart("Cost per day", v.cost),
			chart("Tokens per day (input, output, cache read, cache write)", v.tokens),
			chart("Sessions per day", v.sessions),
			chart("Turns per day", v.turn)),
		chart("Sessions started, weekday × hour (UTC)", v.heat),
	))
	section := func(title string, c fyne.CanvasObject) fyne.CanvasObject {
		return container.NewVBox(widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), c)
	}
	breakdowns := container.NewVScroll(container.NewGridWithColumns(2,
		container.NewVBox(section("By model", v.models), section("By backend", v.backends), section("By worktree", v.worktrees)),
		container.NewVBox(section("Top tools (calls · errors)", v.tools), section("Top files", v.topFiles)),
	))
	v.files = NewFilesPanel(a, true)
	v.tabs = container.NewAppTabs(
		container.NewTabItem("Overview", overview),
		container.NewTabItem("Breakdowns", breakdowns),
		container.NewTabItem("Files", v.files.Content()),
	)
	top := container.NewVBox(container.NewHBox(scopeSel, v.rangeSel), v.totals, v.readout)
	v.root = container.NewBorder(top, nil, nil, nil, v.tabs)
	if len(scopes) > 0 {
		v.scope = scopes[0].Scope
		scopeSel.SetSelectedIndex(0) // loads, on the range the app chooses
	}
	return v
}

// showRange selects the choice of days without loading again.
func (v *InsightsView) showRange(days int) {
	for _, r := range insightRanges {
		if r.days == days {
			v.showingRange = true
			v.rangeSel.SetSelected(r.label)
			v.showingRange = false
		}
	}
}

// Range returns the label of the range chosen ("" before the first data
// when the app chooses it).
func (v *InsightsView) Range() string { return v.rangeSel.Selected }

// Content returns the view's root object.
func (v *InsightsView) Content() fyne.CanvasObject { return v.root }

func (v *InsightsView) reload() {
	v.totals.SetText("Loading…")
	v.a.LoadInsights(v.scope, v.days)
}

// SetData shows d; when the app chose its range, the range choice shows
// it.
func (v *InsightsView) SetData(d InsightData) {
	v.data = d
	if v.days == InsightAutoRange {
		v.days = d.Range
		v.showRange(d.Range)
	}
	t := d.Total
	cost := display.USD(t.CostUSD)
	if d.CostEstimated {
		cost = "~" + cost + " (partly estimated from a dated price table)"
	}
	v.totals.SetText(fmt.Sprintf("%s · %s · %s input · %s output · %s cache read · %s cache write · %s reasoning tokens · %s",
		display.Plural(t.Sessions, "session"), display.Plural(t.Turns, "turn"), display.Count(t.Input), display.Count(t.Output),
		display.Count(t.CacheRead), display.Count(t.CacheWrite), display.Count(t.Reasoning), cost))
	labels := make([]string, len(d.Days))
	costs, tokens, sess, turns := make([][]float64, len(d.Days)), make([][]float64, len(d.Days)), make([][]float64, len(d.Days)), make([][]float64, len(d.Days))
	for i, day := range d.Days {
		labels[i] = day.Day
		costs[i] = []float64{day.CostUSD}
		tokens[i] = []float64{float64(day.Input), float64(day.Output), float64(day.CacheRead), float64(day.CacheWrite)}
		sess[i] = []float64{float64(day.Sessions)}
		turns[i] = []float64{float64(day.Turns)}
	}
	v.cost.SetData(labels, costs)
	v.tokens.SetData(labels, tokens)
	v.sessions.SetData(labels, sess)
	v.turn.SetData(labels, turns)
	v.heat.SetData(d.Heat)
	fillShares(v.models, d.Models)
	fillShares(v.backends, d.Backends)
	fillShares(v.worktrees, d.Worktrees)
	v.tools.Objects = nil
	var maxCalls int64 = 1
	for _, tl := range d.Tools {
		maxCalls = max(maxCalls, tl.Calls)
	}
	for _, tl := range d.Tools {
		rate := 0.0
		if tl.Calls > 0 {
			rate = 100 * float64(tl.Errors) / float64(tl.Calls)
		}
		v.tools.Add(shareBar(tl.Name, float64(tl.Calls)/float64(maxCalls), fmt.Sprintf("%d · %d (%.0f%%)", tl.Calls, tl.Errors, rate)))
	}
	v.tools.Refresh()
	v.topFiles.Objects = nil
	top := d.TopFiles
	for _, f := range top {
		v.topFiles.Add(pathShareBar(f.Path, float64(f.Count)/float64(max(top[0].Count, 1)), fmt.Sprintf("%d", f.Count)))
	}
	v.topFiles.Refresh()
	v.files.SetFiles(d.Files)
	if d.FilesLimited {
		v.files.title.SetText("The newest files of each worktree; choose one to see every change the agent made to it, in order.")
	}
}

func fillShares(c *fyne.Container, shares []InsightShare) {
	c.Objects = nil
	maxCost, maxTok := 0.0, int64(0)
	for _, s := range shares {
		maxCost = max(maxCost, s.CostUSD)
		maxTok = max(maxTok, s.Tokens)
	}
	for _, s := range shares {
		frac := 0.0
		if maxCost > 0 {
			frac = s.CostUSD / maxCost
		} else if maxTok > 0 {
			frac = float64(s.Tokens) / float64(maxTok)
		}
		key := s.Key
		if key == "" {
			key = "(unknown)"
		}
		c.Add(shareBar(key, frac, fmt.Sprintf("$%.2f · %s tok", s.CostUSD, display.Short(s.Tokens))))
	}
	c.Refresh()
}

// ShowDiffs shows every change of a file, in order.
func (v *InsightsView) ShowDiffs(path string, diffs []FileDiff) { v.files.ShowDiffs(path, diffs) }

// Files returns the Files tab.
func (v *InsightsView) Files() *FilesPanel { return v.files }

// Totals returns the totals line shown (for tests).
func (v *InsightsView) Totals() string { return strings.TrimSpace(v.totals.Text) }
