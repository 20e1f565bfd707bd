package views

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// sampleEvents has one event of every kind a card exists for.
func sampleEvents(t testing.TB) []store.StoredEvent {
	path := new("/w/main.go")
	return stored(
		codec.Init("/w", "opus"),
		codec.UserMessage("Rename the greeting, please."),
		codec.AssistantText("Sure. I'll change `hello` to **goodbye**:\n\n```go\nfmt.Println(\"goodbye\")\n```"),
		codec.ToolCall("t1", "Bash", nil, rawJSON(t, map[string]any{"command": "go test ./..."})),
		codec.ToolResult("t1", "Bash", nil, "ok  \texample.com/w\t0.01s", false),
		codec.ToolCall("t2", "Edit", path, rawJSON(t, map[string]any{
			"file_path": "/w/main.go", "old_string": "func main() {\n\tfmt.Println(\"hello\")\n}",
			"new_string": "func main() {\n\tfmt.Println(\"goodbye\")\n}",
		})),
		codec.ToolResult("t2", "Edit", path, "The file /w/main.go has been updated.", false),
		codec.ToolCall("t3", "Write", new("/w/notes.md"), rawJSON(t, map[string]any{
			"file_path": "/w/notes.md", "_lines": 12, "_purpose": "# Release notes",
		})),
		codec.ToolCall("t4", "Read", path, rawJSON(t, map[string]any{"file_path": "/w/main.go"})),
		codec.ToolResult("t4", "Read", path, "package main\n  (40 lines)\n}", false),
		codec.ToolResult("t5", "Grep", nil, "no such file", true),
		codec.Plan("Refactor", "1. Rename\n2. Test"),
		codec.Hook("SessionStart", "hook ran"),
		codec.Command("/compact"),
		codec.Unit(codec.KindCompacting),
		codec.Unit(codec.KindCompacted),
		codec.ModelSwitch("sonnet"),
		codec.Complete(true, 12345, 0.01234),
	)
}

// newTestTranscript shows events in a window of the given size; height
// hand-off runs through q.
func newTestTranscript(t *testing.T, size fyne.Size) (*Transcript, fyne.Window, *postQueue) {
	t.Helper()
	test.NewTempApp(t)
	tr := NewTranscript(&fakeActions{})
	q := &postQueue{}
	tr.rows.post = q.post
	w := test.NewTempWindow(t, tr.Content())
	w.Resize(size)
	return tr, w, q
}

func TestTranscriptRowKinds(t *testing.T) {
	events := sampleEvents(t)
	comps := []store.Compaction{{ID: 1, AfterSeq: 3, Summary: "Earlier, the user asked for **X**."}}
	rows := buildRows(events, comps)
	want := []rowKind{rowMuted, rowUser, rowAssistant, rowCompaction, rowTool, rowResult, rowEdit, rowResult,
		rowWrite, rowTool, rowResult, rowResult, rowPlan, rowMuted, rowMuted, rowMuted, rowMuted, rowMuted, rowComplete}
	if len(rows) != len(want) {
		t.Fatalf("buildRows gave %d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if r.kind != want[i] {
			t.Errorf("row %d kind = %d, want %d", i, r.kind, want[i])
		}
	}
	if rows[3].comp != 0 || rows[2].event != 2 || rows[4].event != 3 {
		t.Errorf("compaction not right after seq 3: rows %+v %+v %+v", rows[2], rows[3], rows[4])
	}
}

func TestTranscriptCompactionPlacement(t *testing.T) {
	events := stored(codec.UserMessage("a"), codec.UserMessage("b"), codec.UserMessage("c"))
	tests := []struct {
		name     string
		afterSeq []int64
		want     []int // event index, or -1 for a compaction
	}{
		{"AfterFirst", []int64{1}, []int{0, -1, 1, 2}},
		{"AfterLast", []int64{3}, []int{0, 1, 2, -1}},
		{"BeforeAll", []int64{0}, []int{-1, 0, 1, 2}},
		{"BeyondEnd", []int64{9}, []int{0, 1, 2, -1}},
		{"Two", []int64{1, 2}, []int{0, -1, 1, -1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var comps []store.Compaction
			for _, s := range tt.afterSeq {
				comps = append(comps, store.Compaction{AfterSeq: s})
			}
			var got []int
			for _, r := range buildRows(events, comps) {
				got = append(got, r.event)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("rows = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("rows = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// cardsByRow returns the cards on screen by the row they show.
func cardsByRow(tr *Transcript) map[int]*card {
	out := map[int]*card{}
	for _, c := range objectsOf[*card](tr.rows.list) {
		if c.id >= 0 && c.Visible() {
			out[c.id] = c
		}
	}
	return out
}

func TestTranscriptCards(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 3000))
	tr.SetSession(store.Session{ID: 1}, sampleEvents(t), []store.Compaction{{AfterSeq: 3, Summary: "Earlier: **X**"}})
	q.drain()
	want := []struct {
		title, detail string
		body          string // the text of the visible body widget, or its type
	}{
		{"Session started · opus · /w", "", ""},
		{"You", "", "Rename the greeting, please."},
		{"Assistant", "", "markdown"},
		{"Summary of earlier conversation", "", ""},
		{"Bash", "go test ./...", ""},
		{"Bash result", "", "ok      example.com/w   0.01s"}, // tabs expanded: Fyne mislays them
		{"Edit", "/w/main.go", "diff"},
		{"Edit result", "", "The file /w/main.go has been updated."},
		{"Write", "/w/notes.md · 12 lines · # Release notes", ""},
		{"Read", "/w/main.go", ""},
		{"Read result", "", "package main\n  (40 lines)\n}"},
		{"Grep error", "", "no such file"},
		{"Plan", "Refactor", "markdown"},
		{"Hook SessionStart: hook ran", "", ""},
		{"Command /compact", "", ""},
		{"Compacting the conversation…", "", ""},
		{"Conversation compacted", "", ""},
		{"Model switched to sonnet", "", ""},
		{"", "✓ Completed in 12.3s · $0.0123", ""}, // in the detail's place: cut to the card's width
	}
	cards := cardsByRow(tr)
	for i, w := range want {
		c := cards[i]
		if c == nil {
			t.Fatalf("row %d (%s) has no card on screen", i, w.title)
		}
		detail := ""
		if c.detail.Visible() {
			detail = c.detail.Text
		}
		if c.title.Text != w.title || detail != w.detail || cardBody(c) != w.body {
			t.Errorf("row %d: card %q / %q / %q, want %q / %q / %q", i, c.title.Text, detail, cardBody(c), w.title, w.detail, w.body)
		}
		if h := tr.rows.heights[i]; h < c.MinSize().Height || h == 0 {
			t.Errorf("row %d: height %v, card needs %v", i, h, c.MinSize().Height)
		}
	}
	if note := cards[10].note; note == nil || !note.Visible() || note.Text != "truncated at ingestion: first and last of 40 lines stored" {
		t.Errorf("Read result has no truncation note")
	}
	if cards[11].mono.Importance != widget.DangerImportance {
		t.Errorf("error result importance = %v, want danger", cards[11].mono.Importance)
	}
}

// cardBody names what the body of c shows.
func cardBody(c *card) string {
	switch {
	case c.text != nil && c.text.Visible():
		return c.text.Text
	case c.mono != nil && c.mono.Visible():
		return c.mono.Text
	case c.md != nil && c.md.Visible():
		return "markdown"
	case c.diff != nil && c.diff.Visible():
		return "diff"
	}
	return ""
}

func TestTranscriptToggleAndCopy(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(800, 3000))
	tr.SetSession(store.Session{ID: 1}, sampleEvents(t), []store.Compaction{{AfterSeq: 3, Summary: "Earlier: **X**"}})
	q.drain()
	bash := cardsByRow(tr)[4]
	before := tr.rows.heights[4]
	test.Tap(bash.toggle)
	q.drain()
	bash = cardsByRow(tr)[4]
	if bash.mono == nil || !bash.mono.Visible() || bash.mono.Text != "{\n  \"command\": \"go test ./...\"\n}" {
		t.Fatalf("input not shown after the toggle")
	}
	if tr.rows.heights[4] <= before {
		t.Errorf("height %v after opening the input, was %v", tr.rows.heights[4], before)
	}
	summary := cardsByRow(tr)[3]
	test.Tap(summary.toggle)
	q.drain()
	if c := cardsByRow(tr)[3]; c.md == nil || !c.md.Visible() || c.toggle.text.Text != "▾ hide" {
		t.Errorf("summary not expanded")
	}
	test.Tap(cardsByRow(tr)[6].copy)
	if got := fyne.CurrentApp().Clipboard().Content(); !strings.Contains(got, "-\tfmt.Println(\"hello\")\n+\tfmt.Println(\"goodbye\")") {
		t.Errorf("copied %q, want the diff", got)
	}
	_ = w
}

func TestTranscriptFind(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 400))
	var events []codec.Event
	for i := range 60 {
		text := "filler"
		if i%20 == 5 {
			text = "the Needle is here"
		}
		events = append(events, codec.AssistantText(text))
	}
	tr.SetSession(store.Session{ID: 1}, stored(events...), nil)
	q.drain()
	tr.find.Show()
	tr.find.entry.SetText("needle")
	steps := []struct {
		do     func()
		status string
		row    int
	}{
		{func() {}, "1 of 3", 5},
		{tr.find.Next, "2 of 3", 25},
		{tr.find.Next, "3 of 3", 45},
		{tr.find.Next, "1 of 3", 5},
		{tr.find.Previous, "3 of 3", 45},
		{tr.find.Previous, "2 of 3", 25},
	}
	for i, s := range steps {
		s.do()
		q.drain()
		if tr.find.Status() != s.status || tr.find.row != s.row {
			t.Fatalf("step %d: %q at row %d, want %q at row %d", i, tr.find.Status(), tr.find.row, s.status, s.row)
		}
		c := cardsByRow(tr)[s.row]
		if c == nil || c.bg.StrokeWidth == 0 {
			t.Fatalf("step %d: row %d is not on screen and highlighted", i, s.row)
		}
	}
	tr.find.entry.SetText("absent")
	if tr.find.Status() != "No matches" || tr.find.row != -1 {
		t.Errorf("no match: %q at row %d", tr.find.Status(), tr.find.row)
	}
	tr.find.Hide()
	if tr.find.bar.Visible() {
		t.Error("find bar still shown")
	}
}

func TestTranscriptShortcut(t *testing.T) {
	tr, _, _ := newTestTranscript(t, fyne.NewSize(400, 300))
	if tr.HandleShortcut(&fyne.ShortcutCopy{}) {
		t.Error("HandleShortcut(Copy) = true")
	}
	if !tr.HandleShortcut(tr.Shortcuts()[0]) || !tr.find.bar.Visible() {
		t.Error("Ctrl+F did not show the find bar")
	}
}

func TestTranscriptAppendKeepsBottom(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 400))
	var events []codec.Event
	for range 40 {
		events = append(events, codec.UserMessage("line one\nline two"))
	}
	tr.SetSession(store.Session{ID: 1}, stored(events...), nil)
	q.drain()
	if !tr.rows.atBottom() {
		t.Fatal("a new session does not open at the bottom")
	}
	tr.AppendEvents(storedFrom(41, codec.AssistantText("the newest")))
	q.drain()
	if !tr.rows.atBottom() || cardsByRow(tr)[40] == nil {
		t.Fatal("after AppendEvents at the bottom, the new card is not shown")
	}
	tr.rows.list.ScrollToTop()
	tr.AppendEvents(storedFrom(42, codec.AssistantText("one more")))
	q.drain()
	if tr.rows.list.GetScrollOffset() != 0 {
		t.Errorf("AppendEvents scrolled a view that was not at the bottom (offset %v)", tr.rows.list.GetScrollOffset())
	}
}

func TestTranscriptClear(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 400))
	tr.SetSession(store.Session{ID: 1}, sampleEvents(t), nil)
	q.drain()
	tr.Clear()
	if tr.rows.length() != 0 || !tr.empty.Visible() {
		t.Errorf("after Clear: %d rows, placeholder shown %v", tr.rows.length(), tr.empty.Visible())
	}
}

func TestTruncationNote(t *testing.T) {
	tests := []struct {
		tool, content, want string
	}{
		{"Read", "a\n  (12 lines)\nz", "truncated at ingestion: first and last of 12 lines stored"},
		{"Grep", "a\nb\nc\n  (+4 more)", "truncated at ingestion: 4 more lines not stored"},
		{"Task", "1\n2\n3\n4\n5\n  (+9 more lines)", "truncated at ingestion: 9 more lines not stored"},
		{"Glob", "12 files", "truncated at ingestion: only the file count was stored"},
		{"Glob", "a.go", ""},
		{"Bash", "x\n  (+4 more)", ""},
		{"Grep", "plain", ""},
	}
	for _, tt := range tests {
		if got := truncationNote(tt.tool, tt.content); got != tt.want {
			t.Errorf("truncationNote(%q, %q) = %q, want %q", tt.tool, tt.content, got, tt.want)
		}
	}
}

// TestTranscriptImmediatePost runs the height hand-off through the test
// driver's fyne.Do, which runs at once, inside the list's layout: the app
// layer's tests see this path.
func TestTranscriptImmediatePost(t *testing.T) {
	test.NewTempApp(t)
	tr := NewTranscript(&fakeActions{})
	w := test.NewTempWindow(t, tr.Content())
	w.Resize(fyne.NewSize(700, 500))
	var events []codec.Event
	for _, e := range sampleEvents(t) {
		events = append(events, e.Event, e.Event, e.Event)
	}
	tr.SetSession(store.Session{ID: 1}, storedFrom(1, events...), nil)
	tr.AppendEvents(storedFrom(int64(len(events)+1), codec.AssistantText("tail\n\nwith two paragraphs")))
	if !tr.rows.atBottom() || len(tr.rows.pending) != 0 {
		t.Fatalf("at bottom %v, %d heights pending", tr.rows.atBottom(), len(tr.rows.pending))
	}
	for id, c := range cardsByRow(tr) {
		if c.Size().Height < c.MinSize().Height {
			t.Errorf("row %d: card %v high, needs %v", id, c.Size().Height, c.MinSize().Height)
		}
	}
	w.Resize(fyne.NewSize(400, 500)) // narrower: rows are measured again
	for id, c := range cardsByRow(tr) {
		if tr.rows.widths[id] != c.Size().Width || c.Size().Height < c.MinSize().Height {
			t.Errorf("after resize, row %d: card %v, needs %v, measured at width %v", id, c.Size(), c.MinSize(), tr.rows.widths[id])
		}
	}
}

// TestTranscriptBeforeWindow fills a transcript that is not shown yet, as
// the app may before Window.SetContent.
func TestTranscriptBeforeWindow(t *testing.T) {
	test.NewTempApp(t)
	tr := NewTranscript(&fakeActions{})
	tr.SetSession(store.Session{ID: 1}, sampleEvents(t), nil)
	tr.AppendEvents(storedFrom(100, codec.AssistantText("late")))
	tr.find.Show()
	tr.find.Next()
	w := test.NewTempWindow(t, tr.Content())
	w.Resize(fyne.NewSize(600, 400))
	if cardsByRow(tr)[len(tr.rows.rows)-1] == nil {
		t.Error("the last card is not shown")
	}
}

func TestTranscriptStaysAtBottomWhenShorter(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(600, 500))
	tr.SetSession(store.Session{ID: 1}, sampleEvents(t), nil)
	q.drain()
	if !tr.rows.atBottom() {
		t.Fatal("SetSession left the bottom")
	}
	w.Resize(fyne.NewSize(600, 380)) // e.g. the prompt box below grew
	q.drain()
	if !tr.rows.atBottom() {
		t.Error("the transcript left the bottom when it got shorter")
	}
	tr.rows.list.ScrollToTop()
	w.Resize(fyne.NewSize(600, 300))
	q.drain()
	if tr.rows.list.GetScrollOffset() != 0 {
		t.Errorf("a transcript scrolled to the top moved to %v when it got shorter", tr.rows.list.GetScrollOffset())
	}
}

// A session shown from its end: the bar says how many events are not
// loaded and asks for them once; compactions of events not loaded are left
// out; prepended events keep the row that was at the top on screen.
func TestTranscriptEarlierEvents(t *testing.T) {
	test.NewTempApp(t)
	fa := &fakeActions{}
	tr := NewTranscript(fa)
	q := &postQueue{}
	tr.rows.post = q.post
	w := test.NewTempWindow(t, tr.Content())
	w.Resize(fyne.NewSize(600, 400))
	prompts := func(n int) []codec.Event {
		evs := make([]codec.Event, n)
		for i := range evs {
			evs[i] = codec.UserMessage(fmt.Sprintf("prompt %d", i))
		}
		return evs
	}
	compactionRows := func() []int64 {
		var after []int64
		for _, r := range tr.rows.rows {
			if r.kind == rowCompaction {
				after = append(after, tr.rows.compactions[r.comp].AfterSeq)
			}
		}
		return after
	}
	comps := []store.Compaction{{AfterSeq: 120, Summary: "c"}, {AfterSeq: 50, Summary: "a"}, {AfterSeq: 100, Summary: "b"}}
	tr.ref = SessionRef{StorePath: "/s.azs", ID: 7}
	tr.SetSessionTail(store.Session{ID: 7}, storedFrom(101, prompts(40)...), comps, 100)
	q.drain()
	if !tr.load.earlierBar.Visible() || tr.load.earlierLabel.Text != "Showing the newest 40 of 140 events; find covers these." {
		t.Fatalf("bar shown %v, %q", tr.load.earlierBar.Visible(), tr.load.earlierLabel.Text)
	}
	if got := compactionRows(); !slices.Equal(got, []int64{100, 120}) {
		t.Errorf("compaction rows after %v, want [100 120] (50 covers events not loaded)", got)
	}
	test.Tap(tr.load.earlierMore)
	test.Tap(tr.load.earlierMore) // a second tap while loading asks nothing more
	test.Tap(tr.load.earlierAll)
	if got := fa.String(); got != "earlier /s.azs#7 all=false" {
		t.Errorf("intents %q", got)
	}

	tr.rows.list.ScrollToTop()
	q.drain()
	tr.PrependEvents(storedFrom(51, prompts(50)...), 50)
	q.drain()
	if tr.load.Earlier() != 50 || len(tr.rows.events) != 90 || tr.rows.events[0].Seq != 51 {
		t.Fatalf("after prepend: %d earlier, %d events from seq %d", tr.load.Earlier(), len(tr.rows.events), tr.rows.events[0].Seq)
	}
	if got := compactionRows(); !slices.Equal(got, []int64{50, 100, 120}) {
		t.Errorf("compaction rows after %v, want [50 100 120]", got)
	}
	if row := tr.rows.rowOfSeq(101); cardsByRow(tr)[row] == nil {
		t.Errorf("the row that was at the top (seq 101, row %d) is not shown after the prepend", row)
	}
	if tr.load.earlierMore.Disabled() || tr.load.earlierLabel.Text != "Showing the newest 90 of 140 events; find covers these." {
		t.Errorf("bar after prepend: more disabled %v, %q", tr.load.earlierMore.Disabled(), tr.load.earlierLabel.Text)
	}

	tr.PrependEvents(storedFrom(1, prompts(50)...), 0)
	q.drain()
	if tr.load.earlierBar.Visible() || len(tr.rows.events) != 140 {
		t.Errorf("everything loaded: bar shown %v, %d events", tr.load.earlierBar.Visible(), len(tr.rows.events))
	}
	tr.SetSession(store.Session{ID: 8}, storedFrom(1, prompts(3)...), nil)
	if tr.load.Earlier() != 0 || tr.load.earlierBar.Visible() {
		t.Error("a new session kept the earlier bar")
	}
}

// Turn usage and full text that arrive after the session is shown fill
// again only the cards they change (completion rows; rows with full
// output), not every card on screen; the same usage again changes none.
func TestLateDetailsRefillOnlyTheirCards(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 3000))
	events := sampleEvents(t)
	tr.SetSession(store.Session{ID: 1}, events, nil)
	q.drain()
	if len(cardsByRow(tr)) < 10 {
		t.Fatalf("%d cards on screen, want every row's", len(cardsByRow(tr)))
	}
	turns := []TurnUsage{{FirstSeq: 1, LastSeq: 100, Input: 5, Output: 7}}
	for _, step := range []struct {
		name string
		do   func()
		want int
	}{
		{"SetTurnUsage", func() { tr.SetTurnUsage(turns) }, 1},
		{"SetTurnUsage again", func() { tr.SetTurnUsage(turns) }, 0},
		{"SetFullText", func() { tr.SetFullText(map[int64]string{events[4].Seq: "ok  \texample.com/w\t0.01s\nmore"}) }, 1},
	} {
		before := tr.cards.shows
		step.do()
		q.drain()
		if got := tr.cards.shows - before; got != step.want {
			t.Errorf("%s filled %d cards, want %d", step.name, got, step.want)
		}
	}
}

// Going to an event far from the rows shown (a search hit, a find match,
// Home) shows its rows at their measured heights in the first frame: no
// card is laid out shorter than its content, which would draw it over the
// next card until the rows settle.
func TestGoToEventFirstFrameNotGarbled(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
	var evs []codec.Event
	for i := range 150 {
		evs = append(evs, codec.UserMessage(fmt.Sprintf("prompt %d\n%s", i, strings.Repeat("a longer line of the prompt\n", i%7))),
			codec.AssistantText(fmt.Sprintf("reply %d:\n\n- one\n- two\n- three\n\n%s", i, strings.Repeat("words and more words ", 3+i%20))))
	}
	events := stored(evs...)
	tr.SetSession(store.Session{ID: 1}, events, nil)
	q.drain()
	check := func(what string) {
		t.Helper()
		cards := cardsByRow(tr)
		if len(cards) == 0 {
			t.Fatalf("%s: no card shown", what)
		}
		for id, c := range cards {
			if got, want := tr.rows.heightOf(id), c.MinSize().Height; got+0.5 < want {
				t.Errorf("%s: row %d is %v tall in the first frame, its card needs %v", what, id, got, want)
			}
		}
	}
	tr.Nav().ShowEvent(events[120].Seq, false) // no drain: the frame before the heights' hand-off
	check("ShowEvent")
	q.drain()
	tr.Nav().ScrollKey(fyne.KeyHome)
	check("Home")
	q.drain()
	tr.Nav().ScrollKey(fyne.KeyEnd)
	check("End")
}

// A search hit among the events not loaded: the app loads from the hit up
// to those shown (PrependEvents) and goes to it in the same turn of the
// event loop; the first frame there shows the rows at their measured
// heights.
func TestOpenHitInEarlierEventsFirstFrameNotGarbled(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
	var evs []codec.Event
	for i := range 300 {
		evs = append(evs, codec.UserMessage(fmt.Sprintf("prompt %d\n%s", i, strings.Repeat("a longer line of the prompt\n", i%7))),
			codec.AssistantText(fmt.Sprintf("reply %d:\n\n- one\n- two\n- three\n\n%s", i, strings.Repeat("words and more words ", 3+i%20))))
	}
	events := stored(evs...)
	tail := events[400:]
	tr.SetSessionTail(store.Session{ID: 1}, tail, nil, 400)
	q.drain()
	hit := 120
	tr.PrependEvents(events[hit:400], hit)
	tr.Nav().ShowEvent(events[hit].Seq, false) // no drain: the first frame
	cards := cardsByRow(tr)
	if len(cards) == 0 {
		t.Fatal("no card shown")
	}
	for id, c := range cards {
		if got, want := tr.rows.heightOf(id), c.MinSize().Height; got+0.5 < want {
			t.Errorf("row %d is %v tall in the first frame, its card needs %v", id, got, want)
		}
	}
}

// A session opened at a search hit (ExpectEvent before SetSession) lays
// out the rows at the hit only: the session's last rows, which it used to
// measure and scroll to first, are not measured, and the first frame at
// the hit shows its rows at their measured heights. Expecting an event the
// session does not hold changes nothing: it opens at its end.
func TestExpectedEventSkipsTheEnd(t *testing.T) {
	var evs []codec.Event
	for i := range 150 {
		evs = append(evs, codec.UserMessage(fmt.Sprintf("prompt %d\n%s", i, strings.Repeat("a longer line of the prompt\n", i%7))),
			codec.AssistantText(fmt.Sprintf("reply %d:\n\n- one\n- two\n\n%s", i, strings.Repeat("words and more words ", 3+i%20))))
	}
	events := stored(evs...)
	last := len(events) - 1
	t.Run("hit", func(t *testing.T) {
		tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
		before := tr.cards.shows
		tr.ExpectEvent(events[40].Seq)
		tr.SetSession(store.Session{ID: 1}, events, nil)
		tr.Nav().ShowEvent(events[40].Seq, false) // no drain: the first frame
		if tr.rows.widths[last] != 0 {
			t.Error("the last row was measured for a session opened at a hit")
		}
		cards := cardsByRow(tr)
		if _, ok := cards[40]; !ok {
			t.Fatalf("the hit's row is not shown: rows %v", keysOf(cards))
		}
		for id, c := range cards {
			if got, want := tr.rows.heightOf(id), c.MinSize().Height; got+0.5 < want {
				t.Errorf("row %d is %v tall in the first frame, its card needs %v", id, got, want)
			}
		}
		q.drain()
		if shows := tr.cards.shows - before; shows > 35 { // 52 when it also measured and showed the end
			t.Errorf("opening at the hit filled %d cards", shows)
		}
	})
	t.Run("not held", func(t *testing.T) {
		tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
		tr.ExpectEvent(events[last].Seq + 100)
		tr.SetSession(store.Session{ID: 1}, events, nil)
		q.drain()
		if tr.rows.widths[last] == 0 || !tr.rows.atBottom() {
			t.Error("a session expecting an event it does not hold did not open at its end")
		}
		if tr.expect != 0 {
			t.Error("the expectation outlived the SetSession it was for")
		}
	})
}

func keysOf[V any](m map[int]V) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
