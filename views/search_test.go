package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// fakeSearch records the search panel's intents.
type fakeSearch struct {
	queries []string // "id:query"
	opened  []SearchHit
}

func (f *fakeSearch) Search(id int, query string) {
	f.queries = append(f.queries, fmt.Sprintf("%d:%s", id, query))
}

func (f *fakeSearch) OpenSearchHit(h SearchHit) { f.opened = append(f.opened, h) }

func sampleHits(n int) []SearchHit {
	hits := make([]SearchHit, n)
	for i := range hits {
		hits[i] = SearchHit{
			Ref: SessionRef{StorePath: "/p/a.azs", ID: int64(i + 1)}, Session: fmt.Sprintf("Session %d", i+1),
			Worktree: "main", Seq: int64(10 + i), Kind: "ToolCall", Time: "2026-11-20 10:00:00",
			Snippet: "…go test ./store/ -run TestParser…", Highlights: [][2]int{{3, 10}},
		}
	}
	return hits
}

func newTestSearchPanel(t *testing.T) (*SearchPanel, *fakeSearch, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	f := &fakeSearch{}
	p := NewSearchPanel(f)
	p.debounce = 0 // send at once: no timers in tests
	p.now = func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }
	w := test.NewTempWindow(t, widget.NewLabel("window"))
	w.Resize(fyne.NewSize(1000, 700))
	p.Show(w.Canvas())
	return p, f, w
}

func TestSearchPanelTypingAndResults(t *testing.T) {
	p, f, w := newTestSearchPanel(t)
	if !p.Visible() || w.Canvas().Focused() != p.entry {
		t.Fatalf("panel shown %v, focus on %v", p.Visible(), w.Canvas().Focused())
	}
	test.Type(p.entry, "go test")
	if n := len(f.queries); n != len("go test") || f.queries[n-1] != "7:go test" {
		t.Fatalf("queries sent: %q", f.queries)
	}
	if p.Status() != "Searching…" {
		t.Errorf("status while searching = %q", p.Status())
	}
	p.SetResults(6, SearchResults{Hits: sampleHits(9)}) // an older query's answer
	if len(p.Hits()) != 0 {
		t.Error("results of an older query were shown")
	}
	p.SetResults(7, SearchResults{Hits: sampleHits(3), More: true, Note: "Note here."})
	if len(p.Hits()) != 3 || p.Selected() != 0 {
		t.Fatalf("hits %d, selected %d", len(p.Hits()), p.Selected())
	}
	if p.Status() != "The newest 3 matches. Note here." {
		t.Errorf("status = %q", p.Status())
	}
	p.SetIndexing("Indexing… 45%")
	if p.Status() != "The newest 3 matches. Note here. Indexing… 45%" {
		t.Errorf("status while indexing = %q", p.Status())
	}
	rows := objectsOf[*searchRow](p.list)
	if len(rows) == 0 {
		t.Fatal("no result rows on screen")
	}
	r := rows[0]
	if got := r.head.String(); got != "Session 1  main · 2h ago · tool call" {
		t.Errorf("row head = %q", got)
	}
	if runs := r.snippet.runs; len(runs) != 3 || runs[1].Text != "go test" || !runs[1].Style.Bold {
		t.Errorf("snippet runs = %v", runs)
	}
	p.SetResults(7, SearchResults{Err: "query too short: type at least 2 characters"})
	if len(p.Hits()) != 0 || p.Status() != "query too short: type at least 2 characters Indexing… 45%" {
		t.Errorf("error: %d hits, status %q", len(p.Hits()), p.Status())
	}
	p.SetIndexing("")
	p.entry.SetText("")
	if p.Status() != "" || len(p.Hits()) != 0 {
		t.Errorf("empty query: status %q, %d hits", p.Status(), len(p.Hits()))
	}
}

// TestSearchPanelPartial: an as-you-type answer that its time budget cut
// short says so first in the status line, with the note saying why.
func TestSearchPanelPartial(t *testing.T) {
	p, _, _ := newTestSearchPanel(t)
	test.Type(p.entry, "error")
	for _, tc := range []struct {
		res  SearchResults
		want string
	}{
		{SearchResults{Hits: sampleHits(3), More: true, Partial: true, Note: "Why."}, "Partial results: 3 matches found so far. Why."},
		{SearchResults{Hits: sampleHits(1), Partial: true, Note: "Why."}, "Partial results: 1 match found so far. Why."},
		{SearchResults{Partial: true, Note: "Why."}, "Partial results: no matches found so far. Why."},
		{SearchResults{Hits: sampleHits(3), More: true}, "The newest 3 matches."},
	} {
		p.SetResults(p.sent, tc.res)
		if p.Status() != tc.want {
			t.Errorf("SetResults(%+v): status %q, want %q", tc.res, p.Status(), tc.want)
		}
	}
}

func TestSearchPanelKeyboard(t *testing.T) {
	p, f, w := newTestSearchPanel(t)
	test.Type(p.entry, "parser")
	p.SetResults(p.sent, SearchResults{Hits: sampleHits(4)})
	for _, k := range []fyne.KeyName{fyne.KeyDown, fyne.KeyDown, fyne.KeyUp, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown} {
		w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: k})
	}
	if p.Selected() != 3 || len(f.opened) != 0 {
		t.Fatalf("selected %d, opened %v", p.Selected(), f.opened)
	}
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(f.opened) != 1 || f.opened[0].Ref.ID != 4 || f.opened[0].Seq != 13 || p.Visible() {
		t.Fatalf("Enter opened %v; panel visible %v", f.opened, p.Visible())
	}
	// Shown again, the query is searched again and Escape closes the panel.
	n := len(f.queries)
	p.Show(w.Canvas())
	if len(f.queries) != n+1 || p.Query() != "parser" {
		t.Errorf("queries after Show: %q", f.queries)
	}
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if p.Visible() {
		t.Error("Escape did not close the panel")
	}
}

func TestSearchPanelClick(t *testing.T) {
	p, f, _ := newTestSearchPanel(t)
	test.Type(p.entry, "parser")
	p.SetResults(p.sent, SearchResults{Hits: sampleHits(3)})
	p.list.Select(2) // a click on the third row
	if len(f.opened) != 1 || f.opened[0].Ref.ID != 3 || p.Visible() {
		t.Errorf("click opened %v; panel visible %v", f.opened, p.Visible())
	}
}

func TestSnippetSegments(t *testing.T) {
	for _, tc := range []struct {
		s    string
		hl   [][2]int
		want string
	}{
		{"abc", nil, "abc"},
		{"abc", [][2]int{{0, 3}}, "[abc]"},
		{"a bc d", [][2]int{{2, 4}}, "a [bc] d"},
		{"a bc d", [][2]int{{2, 4}, {3, 5}, {9, 12}, {5, 6}}, "a [bc] [d]"}, // overlapping and out of range ignored
		{"éa", [][2]int{{1, 3}}, "éa"},                                      // not on a rune boundary
	} {
		var got string
		for _, r := range snippetRuns(tc.s, tc.hl) {
			if r.Style.Bold {
				got += "[" + r.Text + "]"
			} else {
				got += r.Text
			}
		}
		if got != tc.want {
			t.Errorf("snippetRuns(%q, %v) = %q, want %q", tc.s, tc.hl, got, tc.want)
		}
	}
}

func TestTranscriptShowEvent(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 400))
	var events []codec.Event
	for i := range 80 {
		events = append(events, codec.AssistantText(fmt.Sprintf("event %d", i+1)))
	}
	evs := stored(events...)
	evs = append(evs[:20], evs[21:]...) // seq 21 hidden by the read-time filter
	comps := []store.Compaction{{ID: 1, SessionID: 1, AfterSeq: 10, Summary: "summary"}}
	tr.SetSession(store.Session{ID: 1}, evs, comps)
	q.drain()
	for _, tc := range []struct {
		seq        int64
		compaction bool
		row        int
	}{
		{5, false, 4}, {10, true, 10}, {11, false, 11}, {21, false, 21}, {80, false, 79},
	} {
		if !tr.nav.ShowEvent(tc.seq, tc.compaction) {
			t.Fatalf("ShowEvent(%d) found nothing", tc.seq)
		}
		q.drain()
		if tr.find.row != tc.row {
			t.Errorf("ShowEvent(%d, %v) highlighted row %d, want %d", tc.seq, tc.compaction, tr.find.row, tc.row)
		}
		if c := cardsByRow(tr)[tc.row]; c == nil {
			t.Errorf("ShowEvent(%d): row %d is not on screen", tc.seq, tc.row)
		}
	}
	if tr.nav.ShowEvent(500, false) {
		t.Error("ShowEvent past the end found a row")
	}
}

// A debounce timer that fires just before the next key (its send queued
// behind that key) sends nothing: the next key's timer sends the query
// once. Sending it twice drew the same results twice.
func TestSearchDebounceSendsOnce(t *testing.T) {
	p, f, _ := newTestSearchPanel(t)
	var timers []func()
	p.debounce = time.Millisecond
	p.after = func(_ time.Duration, fn func()) func() bool {
		timers = append(timers, fn)
		return func() bool { return false } // fired already: too late to stop
	}
	test.Type(p.entry, "ab")
	for _, fn := range timers { // both fire after the last key
		fn()
	}
	if len(f.queries) != 1 || !strings.HasSuffix(f.queries[0], ":ab") {
		t.Errorf("queries sent: %q, want one of %q", f.queries, "ab")
	}
}

// TestSearchPanelDrawsNoBlur: Fyne blurs the window behind a modal pop-up
// in every frame it is open, which a software renderer pays for with most
// of the frame; the theme turns it off.
func TestSearchPanelDrawsNoBlur(t *testing.T) {
	test.NewTempApp(t)
	fyne.CurrentApp().Settings().SetTheme(Theme{})
	p := NewSearchPanel(&fakeSearch{})
	w := test.NewTempWindow(t, widget.NewLabel("window"))
	w.Resize(fyne.NewSize(1000, 700))
	p.Show(w.Canvas())
	overlays := w.Canvas().Overlays().List()
	if len(overlays) == 0 {
		t.Fatal("the Ctrl+K panel is not shown")
	}
	var drawn []*canvas.Blur
	for _, o := range overlays {
		for _, b := range collectObjects[*canvas.Blur](o, true) {
			if b.Radius > 0 {
				drawn = append(drawn, b)
			}
		}
	}
	if len(drawn) != 0 {
		t.Errorf("the Ctrl+K panel draws %d blurs behind it (radius %v), want none", len(drawn), drawn[0].Radius)
	}
	// Nor a backdrop over the whole window, repainted with every key typed.
	win := w.Canvas().Size()
	for _, o := range overlays {
		for _, r := range collectObjects[*canvas.Rectangle](o, true) {
			if s := r.Size(); s.Width >= win.Width && s.Height >= win.Height && r.FillColor != nil {
				if _, _, _, a := r.FillColor.RGBA(); a > 0 {
					t.Errorf("the Ctrl+K panel draws a %v rectangle over the whole window", s)
				}
			}
		}
	}
	// It floats in the middle of the window.
	pos, size := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.content), p.content.Size()
	if left, right := pos.X, win.Width-pos.X-size.Width; left < 1 || right < 1 || left-right > 2 || right-left > 2 {
		t.Errorf("panel at x %v..%v in a window %v wide, want it centred", pos.X, pos.X+size.Width, win.Width)
	}
}
