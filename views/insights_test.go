package views

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/store"
)

type fakeInsights struct {
	loads []InsightScope
	days  []int
	files []InsightFile
}

func (f *fakeInsights) LoadInsights(s InsightScope, days int) {
	f.loads, f.days = append(f.loads, s), append(f.days, days)
}
func (f *fakeInsights) LoadFileDiffs(file InsightFile) { f.files = append(f.files, file) }

// TestBarChartReadout: hovering a bar shows its values, stacked by kind.
func TestBarChartReadout(t *testing.T) {
	test.NewTempApp(t)
	readout := widget.NewLabel("")
	c := NewBarChart([]string{"input", "output"}, func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }, readout)
	c.SetData([]string{"d1", "d2", "d3"}, [][]float64{{1, 2}, {3, 4}, {0, 0}})
	w := test.NewTempWindow(t, c)
	w.Resize(fyne.NewSize(300, 200))
	c.Resize(fyne.NewSize(300, 150))
	c.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(150, 50)}})
	if got := readout.Text; got != "d2: input 3 · output 4 · total 7" {
		t.Errorf("readout %q", got)
	}
	c.MouseOut()
	if readout.Text != "" {
		t.Errorf("readout after leaving: %q", readout.Text)
	}
}

// TestHeatmapReadout names the cell under the pointer.
func TestHeatmapReadout(t *testing.T) {
	test.NewTempApp(t)
	readout := widget.NewLabel("")
	h := NewHeatmap(readout)
	var counts [7][24]int64
	counts[2][14] = 5
	h.SetData(counts)
	w := test.NewTempWindow(t, h)
	w.Resize(fyne.NewSize(400, 200))
	h.Resize(fyne.NewSize(heatLabelW+240, 70+heatAxisH()))
	h.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(heatLabelW+145, 25)}})
	if got := readout.Text; got != "Wed 14:00–14:59 UTC: 5" {
		t.Errorf("readout %q", got)
	}
}

// TestHeatmapLabels: the grid names its weekdays at the left and its
// hours (every three) under it.
func TestHeatmapLabels(t *testing.T) {
	test.NewTempApp(t)
	h := NewHeatmap(nil)
	w := test.NewTempWindow(t, h)
	w.Resize(fyne.NewSize(800, 200))
	h.Resize(fyne.NewSize(780, 160))
	at := map[string]fyne.Position{}
	for _, o := range test.WidgetRenderer(h).Objects() {
		if t, ok := o.(*canvas.Text); ok {
			at[t.Text] = t.Position()
		}
	}
	gridBottom := 160 - heatAxisH()
	for _, hr := range []string{"0", "3", "6", "9", "12", "15", "18", "21"} {
		p, ok := at[hr]
		if !ok || p.Y < gridBottom {
			t.Errorf("hour label %q at %v (shown %t), want it under the grid (y ≥ %v)", hr, p, ok, gridBottom)
		}
	}
	if at["12"].X <= at["6"].X {
		t.Errorf("hour 12 at x %v, hour 6 at x %v", at["12"].X, at["6"].X)
	}
	for _, d := range weekdays {
		if p, ok := at[d]; !ok || p.X != 0 || p.Y >= gridBottom {
			t.Errorf("weekday label %q at %v (shown %t)", d, p, ok)
		}
	}
}

// TestInsightsViewRange: the window opens on the range the app chose for
// the data, shown as chosen without loading again; the user's choice then
// loads its range.
func TestInsightsViewRange(t *testing.T) {
	test.NewTempApp(t)
	f := &fakeInsights{}
	v := NewInsightsView(f, []InsightScopeOption{{Label: "Project"}})
	test.NewTempWindow(t, v.Content())
	v.SetData(InsightData{Range: 0})
	if got := v.Range(); got != "All time" || len(f.days) != 1 {
		t.Errorf("range %q after %v loads, want All time after one", got, f.days)
	}
	v.rangeSel.SetSelected("7 days")
	if len(f.days) != 2 || f.days[1] != 7 {
		t.Errorf("loads %v, want the 7 days asked for", f.days)
	}
	v.SetData(InsightData{Range: 7})
	if got := v.Range(); got != "7 days" {
		t.Errorf("range %q, want 7 days", got)
	}
}

// TestInsightsView: the first scope loads at once, changing the range
// reloads, data shows in the totals, choosing a file asks for its diffs
// and the diffs show in order.
func TestInsightsView(t *testing.T) {
	test.NewTempApp(t)
	f := &fakeInsights{}
	v := NewInsightsView(f, []InsightScopeOption{{Label: "Project"}, {Label: "Session S2", Scope: InsightScope{Store: "/p/s.azs", Session: 2}}})
	test.NewTempWindow(t, v.Content())
	if len(f.loads) != 1 || f.days[0] != InsightAutoRange {
		t.Fatalf("loads %v days %v, want one load of the range the app chooses", f.loads, f.days)
	}
	v.SetData(InsightData{
		Days:  []InsightDay{{Day: "2026-11-24", Tokens: store.Tokens{CostUSD: 1.5, Input: 10}}, {Day: "2026-11-25"}},
		Total: InsightDay{Sessions: 2, Turns: 3, Tokens: store.Tokens{Input: 10, CostUSD: 1.5}}, CostEstimated: true,
		Tools: []InsightTool{{Name: "Bash", Calls: 4, Errors: 1}},
		Files: []InsightFile{{Store: "/p/s.azs", SessionID: 2, Path: "a.go", Action: "edit", Count: 2}},
	})
	if got := v.Totals(); !strings.Contains(got, "2 sessions") || !strings.Contains(got, "~$1.50") {
		t.Errorf("totals %q", got)
	}
	if got := v.Files().Rows(); len(got) != 1 || got[0] != "S2 · a.go · edit ×2" {
		t.Errorf("file rows %q", got)
	}
	v.Files().Select(0)
	if len(f.files) != 1 || f.files[0].Path != "a.go" {
		t.Fatalf("file diffs asked for %v", f.files)
	}
	old, nw := "x", "y"
	v.ShowDiffs("a.go", []FileDiff{{Seq: 3, Tool: "Edit", Files: []editdiff.File{{Path: "a.go", Lines: editdiff.Lines(old, nw)}}},
		{Seq: 9, Tool: "Edit", Files: []editdiff.File{{Path: "a.go", Lines: editdiff.Lines(nw, old)}}}})
	if got := v.Files().Title(); got != "a.go: 2 changes" {
		t.Errorf("diff title %q", got)
	}
	if n := len(v.files.diffs.Objects); n != 4 {
		t.Errorf("%d diff objects, want 2 headers and 2 diffs", n)
	}
	if h := v.files.diffs.Objects[0].(*widget.Label).Text; h != "#3 · Edit" {
		t.Errorf("first diff header %q", h)
	}
}

type fakeSQL struct{ queries []string }

func (f *fakeSQL) RunSQL(q string) { f.queries = append(f.queries, q) }

// TestSQLConsole: an example fills the box, Run sends it, results copy as
// CSV and TSV, errors show.
func TestSQLConsole(t *testing.T) {
	test.NewTempApp(t)
	f := &fakeSQL{}
	c := NewSQLConsole(f, []SQLDoc{{"usage", "store, day"}}, []SQLExample{{"Cost", "SELECT 1"}})
	test.NewTempWindow(t, c.Content())
	c.Query().SetText("SELECT a, b FROM x")
	c.Run()
	if len(f.queries) != 1 || f.queries[0] != "SELECT a, b FROM x" {
		t.Fatalf("queries %v", f.queries)
	}
	c.SetResult(SQLTable{Columns: []string{"a", "b"}, Rows: [][]string{{"1", "x,y"}, {"2", "z"}}, Truncated: true})
	if got := c.Delimited(','); got != "a,b\n1,\"x,y\"\n2,z\n" {
		t.Errorf("csv %q", got)
	}
	if got := c.Delimited('\t'); got != "a\tb\n1\tx,y\n2\tz\n" {
		t.Errorf("tsv %q", got)
	}
	if !strings.Contains(c.Status(), "truncated") {
		t.Errorf("status %q", c.Status())
	}
	c.SetError(errors.New("refused: lazuli sql is read-only (INSERT x)"))
	if !strings.Contains(c.Status(), "refused") {
		t.Errorf("status %q", c.Status())
	}
}

// TestSessionUsageHeader: the usage shows for the session shown only, and
// goes when another session is shown.
func TestSessionUsageHeader(t *testing.T) {
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	test.NewTempWindow(t, m.Content())
	a, b := SessionRef{StorePath: "/p", ID: 1}, SessionRef{StorePath: "/p", ID: 2}
	m.ShowSession(a, store.Session{ID: 1, Worktree: "main"}, nil, nil, 0)
	m.Header().SetUsage(b, "stale")
	if m.Header().Usage() != "" {
		t.Errorf("usage of another session shown: %q", m.Header().Usage())
	}
	m.Header().SetUsage(a, "1k in · 2 out · 0 cache · $0.01")
	if m.Header().Usage() != "1k in · 2 out · 0 cache · $0.01" {
		t.Errorf("usage %q", m.Header().Usage())
	}
	m.ShowSession(b, store.Session{ID: 2, Worktree: "main"}, nil, nil, 0)
	if m.Header().Usage() != "" {
		t.Errorf("usage kept for another session: %q", m.Header().Usage())
	}
}

// TestSessionUsageHeaderMakesRoom: the usage line arrives after the
// session is shown; the transcript moves down to make room for it instead
// of the line drawing over the first card.
func TestSessionUsageHeaderMakesRoom(t *testing.T) {
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	a := SessionRef{StorePath: "/p", ID: 1}
	m.ShowSession(a, store.Session{ID: 1, Worktree: "main"}, nil, nil, 0)
	m.Header().SetUsage(a, "1k in · 2 out · 0 cache · $0.01")
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject
	headerBottom := abs(m.top).Y + m.top.Size().Height
	if top := abs(m.transcript.Content()).Y; top < headerBottom {
		t.Errorf("the transcript starts at y=%v, under the header that ends at y=%v", top, headerBottom)
	}
	if got, want := m.top.Size().Height, m.top.MinSize().Height; got < want {
		t.Errorf("the header has %v of the %v it needs", got, want)
	}
}

// TestInsightDayAdd: Add sums sessions, turns and tokens, and keeps d's
// Day; each case adds one figure, so one Add drops fails its case.
func TestInsightDayAdd(t *testing.T) {
	base := InsightDay{Day: "2026-11-24", Sessions: 1, Turns: 2, Tokens: store.Tokens{Input: 3, CostUSD: 0.5}}
	for _, tc := range []struct {
		name string
		o    InsightDay
		want InsightDay
	}{
		{"Sessions", InsightDay{Day: "other", Sessions: 10}, InsightDay{Day: "2026-11-24", Sessions: 11, Turns: 2, Tokens: base.Tokens}},
		{"Turns", InsightDay{Turns: 20}, InsightDay{Day: "2026-11-24", Sessions: 1, Turns: 22, Tokens: base.Tokens}},
		{"Tokens", InsightDay{Tokens: store.Tokens{Input: 30, CacheWrite: 4, CostUSD: 0.25}},
			InsightDay{Day: "2026-11-24", Sessions: 1, Turns: 2, Tokens: store.Tokens{Input: 33, CacheWrite: 4, CostUSD: 0.75}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := base
			got.Add(tc.o)
			if got != tc.want {
				t.Errorf("%+v.Add(%+v) = %+v, want %+v", base, tc.o, got, tc.want)
			}
		})
	}
}

// TestInsightsOverviewFits800: at 800 px the overview's charts and heatmap
// fit the window (a long chart title widened it past the window, cutting
// the heatmap's right end).
func TestInsightsOverviewFits800(t *testing.T) {
	test.NewTempApp(t)
	v := NewInsightsView(&fakeInsights{}, []InsightScopeOption{{Label: "Project"}})
	if w := v.Content().MinSize().Width; w > 800 {
		t.Errorf("the Insights window needs %v px, want at most 800", w)
	}
}
