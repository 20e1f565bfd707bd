package views

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// bigSession makes n events cycling through a realistic turn: prompt,
// text, tool calls and results, an edit, and the turn's Complete.
func bigSession(tb testing.TB, n int) ([]store.StoredEvent, []store.Compaction) {
	path := new("/w/pkg/file.go")
	bash := rawJSON(tb, map[string]any{"command": "go test ./..."})
	edit := rawJSON(tb, map[string]any{"file_path": "/w/pkg/file.go", "old_string": "a := 1\nb := 2", "new_string": "a := 10\nb := 2"})
	turn := []codec.Event{
		codec.UserMessage("Please fix the failing test in pkg/file.go and explain the cause."),
		codec.AssistantText("I'll look at the test first.\n\n```go\nfunc TestX(t *testing.T) {}\n```"),
		codec.ToolCall("t1", "Bash", nil, bash),
		codec.ToolResult("t1", "Bash", nil, "--- FAIL: TestX (0.00s)\nFAIL", true),
		codec.ToolCall("t2", "Edit", path, edit),
		codec.ToolResult("t2", "Edit", path, "The file has been updated.", false),
		codec.ToolCall("t3", "Read", path, rawJSON(tb, map[string]any{"file_path": "/w/pkg/file.go"})),
		codec.ToolResult("t3", "Read", path, "package pkg\n  (120 lines)\n}", false),
		codec.AssistantText("Fixed: the constant was off by one."),
		codec.Complete(true, 34_500, 0.0421),
	}
	events := make([]codec.Event, n)
	for i := range events {
		events[i] = turn[i%len(turn)]
	}
	var comps []store.Compaction
	for seq := int64(5000); seq < int64(n); seq += 10_000 {
		comps = append(comps, store.Compaction{AfterSeq: seq, Summary: fmt.Sprintf("Summary up to %d", seq)})
	}
	return stored(events...), comps
}

// BenchmarkTranscriptRows50K times SetSession on a 50,000-event session in
// a window: building the row view-models, a new list, and laying out and
// measuring the cards on screen.
func BenchmarkTranscriptRows50K(b *testing.B) {
	test.NewTempApp(b)
	tr := NewTranscript(&fakeActions{})
	q := &postQueue{}
	tr.rows.post = q.post
	w := test.NewTempWindow(b, tr.Content())
	w.Resize(fyne.NewSize(900, 800))
	events, comps := bigSession(b, 50_000)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		tr.SetSession(store.Session{ID: 1}, events, comps)
		q.drain()
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/session")
}

// BenchmarkBuildRows50K times the row view-models alone.
func BenchmarkBuildRows50K(b *testing.B) {
	events, comps := bigSession(b, 50_000)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		buildRows(events, comps)
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/build")
}

// BenchmarkTranscriptAppend times AppendEvents of one event at the end of
// a 50,000-event session, as a live turn streams in.
func BenchmarkTranscriptAppend(b *testing.B) {
	test.NewTempApp(b)
	tr := NewTranscript(&fakeActions{})
	q := &postQueue{}
	tr.rows.post = q.post
	w := test.NewTempWindow(b, tr.Content())
	w.Resize(fyne.NewSize(900, 800))
	events, comps := bigSession(b, 50_000)
	tr.SetSession(store.Session{ID: 1}, events, comps)
	q.drain()
	next := storedFrom(50_001, codec.AssistantText("streaming…"))
	b.ReportAllocs()
	for b.Loop() {
		tr.AppendEvents(next)
		q.drain()
	}
}

// BenchmarkInsightsRedraw times showing a year of figures in the Insights
// window (365 days of stacked bars, the heatmap, 20 models, 30 tools and
// 2,000 files) in a window: rebuilding every chart's rectangles, the
// breakdowns and the lists, what a scope or range change costs once the
// figures are computed (target < 100 ms). Painting is the GL driver's and
// is not measured here.
func BenchmarkInsightsRedraw(b *testing.B) {
	test.NewTempApp(b)
	v := NewInsightsView(&fakeInsights{}, []InsightScopeOption{{Label: "Project"}})
	w := test.NewTempWindow(b, v.Content())
	w.Resize(fyne.NewSize(1100, 760))
	var d InsightData
	for i := range 365 {
		d.Days = append(d.Days, InsightDay{Day: fmt.Sprintf("day %d", i), Sessions: int64(i % 9), Turns: int64(i % 31),
			Tokens: store.Tokens{Input: int64(i * 1000), Output: int64(i * 300), CacheRead: int64(i * 9000), CacheWrite: int64(i * 700), CostUSD: float64(i) / 10}})
	}
	for i := range 7 {
		for h := range 24 {
			d.Heat[i][h] = int64(i * h)
		}
	}
	for i := range 20 {
		d.Models = append(d.Models, InsightShare{Key: fmt.Sprintf("model-%d", i), Tokens: int64(i * 1e6), CostUSD: float64(i)})
	}
	for i := range 30 {
		d.Tools = append(d.Tools, InsightTool{Name: fmt.Sprintf("Tool%d", i), Calls: int64(1000 - i), Errors: int64(i)})
	}
	for i := range 2000 {
		d.Files = append(d.Files, InsightFile{Path: fmt.Sprintf("pkg/f%d.go", i%700), Action: "edit", Count: int64(i%17 + 1), SessionID: int64(i)})
	}
	for i := range 15 {
		d.TopFiles = append(d.TopFiles, InsightFile{Path: fmt.Sprintf("pkg/f%d.go", i), Count: int64(100 - i)})
	}
	start := time.Now()
	for b.Loop() {
		v.SetData(d) // rebuilds every chart's rectangles and the lists
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/redraw")
}

// BenchmarkMeasureRows times what a first visit to a session costs per
// card: binding a row to the off-screen card and laying it out at the
// list's width, for 200 rows of the realistic turn (prompts, markdown,
// tool calls with their header detail, results, an edit).
func BenchmarkMeasureRows(b *testing.B) {
	test.NewTempApp(b)
	fyne.CurrentApp().Settings().SetTheme(Theme{})
	tr := NewTranscript(&fakeActions{})
	q := &postQueue{}
	tr.rows.post = q.post
	w := test.NewTempWindow(b, tr.Content())
	w.Resize(fyne.NewSize(900, 800))
	events, comps := bigSession(b, 200)
	tr.SetSession(store.Session{ID: 1}, events, comps)
	q.drain()
	r := tr.rows
	width := r.body.Size().Width
	start := time.Now()
	for b.Loop() {
		for id := range r.rows {
			r.widths[id] = 0
			r.premeasure(id, width)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N*len(r.rows)), "µs/row")
}
