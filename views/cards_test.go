package views

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// diffCardSession is one Edit with a changed line, an added line, a
// removed line and a line long enough to wrap.
func diffCardSession(t *testing.T) []store.StoredEvent {
	oldText := "func greet(name string) string {\n\tmsg := \"Hello, \" + name\n\tlog.Println(\"greeting\", name)\n\treturn msg\n}"
	newText := "func greet(name string) string {\n\tmsg := \"Goodbye, \" + name + \"!\"\n\treturn msg\n}\n\n// farewell is greet's counterpart, kept next to it so that the two stay in sync when the wording changes.\nfunc farewell() {}"
	return stored(codec.ToolCall("t1", "Edit", new("/src/greet.go"), rawJSON(t, map[string]any{
		"file_path": "/src/greet.go", "old_string": oldText, "new_string": newText,
	})))
}

func showDiffCard(t *testing.T, tr *Transcript, q *postQueue) {
	t.Helper()
	tr.SetSession(store.Session{ID: 1}, diffCardSession(t), nil)
	q.drain()
	if c := cardsByRow(tr)[0]; c == nil || cardBody(c) != "diff" {
		t.Fatal("the Edit card shows no diff")
	}
}

func TestDiffCardMarkup(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(560, 300))
	showDiffCard(t, tr, q)
	test.AssertRendersToMarkup(t, "diffcard.xml", w.Canvas())
}

func TestDiffCardImage(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(560, 300))
	fyne.CurrentApp().Settings().SetTheme(theme.DefaultTheme())
	showDiffCard(t, tr, q)
	test.AssertRendersToImage(t, "diffcard.png", w.Canvas())
}

// diffObjects lays the Edit card's diff out at width w and returns its
// renderer.
func diffObjects(t *testing.T, w float32) (*diffView, *diffRenderer) {
	t.Helper()
	test.NewTempApp(t)
	d := newDiffView()
	evs := diffCardSession(t)
	d.set(computeDetail(rowEdit, &evs[0].Event).diffs)
	d.Resize(fyne.NewSize(w, d.MinSize().Height))
	r := test.TempWidgetRenderer(t, d).(*diffRenderer)
	r.Layout(d.Size())
	return d, r
}

// TestDiffRowsNoSeams: the tint of adjacent changed lines is one band on
// whole units (rows at fractional offsets, each rounded on its own, left
// seams), and the last row has the card's padding below it (it was cut
// at the card's edge).
func TestDiffRowsNoSeams(t *testing.T) {
	for _, w := range []float32{300, 560, 1200} {
		d, r := diffObjects(t, w)
		var bands []fyne.Position
		var lastText float32
		for _, o := range r.Objects() {
			switch o := o.(type) {
			case *canvas.Rectangle:
				if _, _, _, a := o.FillColor.RGBA(); a>>8 != lineTint {
					continue
				}
				p, s := o.Position(), o.Size()
				if p.Y != float32(int(p.Y)) || s.Height != float32(int(s.Height)) {
					t.Errorf("width %v: band at y %v, height %v: not whole units", w, p.Y, s.Height)
				}
				bands = append(bands, fyne.NewPos(p.Y, p.Y+s.Height))
			case *canvas.Text:
				lastText = max(lastText, o.Position().Y+o.Size().Height)
			}
		}
		if len(bands) != 3 { // the two removed lines, the changed line, the three added lines
			t.Errorf("width %v: %d tint bands %v, want 3", w, len(bands), bands)
		}
		if h := d.MinSize().Height; h < lastText+theme.Size(theme.SizeNameInnerPadding)/2 {
			t.Errorf("width %v: diff height %v, last row ends at %v: no padding below it", w, h, lastText)
		}
	}
}

// TestDiffFindMark: a find match inside a diff is marked, in every line
// and across a changed word's edge.
func TestDiffFindMark(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"name", []string{"name", "name", "name", "name"}},
		{"bye, \" +", []string{"bye", ", \" +"}},
		{"NOPE", nil},
	} {
		d, r := diffObjects(t, 560)
		d.setMark(strings.ToLower(tc.q))
		r.Layout(d.Size())
		var got []string
		for _, o := range r.Objects() {
			if tx, ok := o.(*canvas.Text); ok && tx.Color == theme.Color(theme.ColorNamePrimary) {
				got = append(got, tx.Text)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("marks of %q = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestDiffCardFindMark: Ctrl+F on a word of an Edit's diff marks it in
// the card.
func TestDiffCardFindMark(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(560, 300))
	showDiffCard(t, tr, q)
	tr.Find().Show()
	tr.Find().entry.SetText("Farewell")
	q.drain()
	if c := cardsByRow(tr)[0]; c.diff.mark != "farewell" {
		t.Errorf("diff mark = %q, want %q", c.diff.mark, "farewell")
	}
}

// TestToolTitleOnFirstLine: beside a command of several lines, the tool's
// name and the card's actions sit on the command's first line (they were
// centred halfway down it).
func TestToolTitleOnFirstLine(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(700, 600))
	cmd := "set -e\ngo vet ./...\ngo test ./...\ngo build -o out/app ."
	tr.SetSession(store.Session{ID: 1}, stored(codec.ToolCall("t1", "Bash", nil, rawJSON(t, map[string]any{"command": cmd}))), nil)
	q.drain()
	c := cardsByRow(tr)[0]
	if c == nil || !c.detail.Visible() || c.detail.Text != cmd {
		t.Fatalf("the Bash card shows no command")
	}
	d := fyne.CurrentApp().Driver()
	line := d.AbsolutePositionForObject(c.detail).Y + firstLineHeight()/2
	for name, o := range map[string]fyne.CanvasObject{"title": c.title, "toggle": c.toggle, "copy": c.copy} {
		mid := d.AbsolutePositionForObject(o).Y + o.Size().Height/2
		if mid < line-1 || mid > line+1 {
			t.Errorf("%s centred at y %v, want the first line's centre %v", name, mid, line)
		}
	}
}

// A card bound to one row and then to another is laid out as a card bound
// to the second row alone: binding lays the card's containers out again
// without refreshing every text in them (relayout), so this checks that
// nothing of the first row's layout is left, for every pair of row kinds.
func TestRebindLaysOutAsNew(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
	events := sampleEvents(t)
	tr.SetSession(store.Session{ID: 1}, events, []store.Compaction{{AfterSeq: 3, Summary: "Earlier: **X** and a longer summary that wraps onto a second line at this width, surely"}})
	q.drain()
	const w = 700
	n := len(tr.rows.rows)
	for a := range n {
		for b := range n {
			if a == b {
				continue
			}
			reused := newCard(tr)
			reused.bind(a)
			reused.heightFor(w)
			reused.bind(b)
			got := reused.heightFor(w)
			fresh := newCard(tr)
			fresh.bind(b)
			want := fresh.heightFor(w)
			if got != want {
				t.Errorf("row %d after row %d: height %v, a new card's %v", b, a, got, want)
				continue
			}
			if g, f := cardLayout(t, reused), cardLayout(t, fresh); g != f {
				t.Errorf("row %d after row %d laid out as\n%s\nnot as a new card:\n%s", b, a, g, f)
			}
		}
	}
}

// cardLayout lists the visible objects of a card with their places and
// sizes, in tree order.
func cardLayout(t *testing.T, c *card) string {
	var b strings.Builder
	var walk func(o fyne.CanvasObject, at fyne.Position)
	walk = func(o fyne.CanvasObject, at fyne.Position) {
		if !o.Visible() {
			return
		}
		at = at.Add(o.Position())
		fmt.Fprintf(&b, "%T %v %v\n", o, at, o.Size())
		switch v := o.(type) {
		case *fyne.Container:
			for _, child := range v.Objects {
				walk(child, at)
			}
		case fyne.Widget:
			for _, child := range test.TempWidgetRenderer(t, v).Objects() {
				walk(child, at)
			}
		}
	}
	walk(c.root, fyne.Position{})
	return b.String()
}

// A completion line longer than its card is cut with "…" before the
// card's actions instead of running under them.
func TestCompletionLineCutToTheCard(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(440, 600))
	tr.SetSession(store.Session{ID: 1}, stored(codec.UserMessage("go"), codec.Complete(true, 1234, 0.0034)), nil)
	q.drain()
	tr.SetTurnUsage([]TurnUsage{{FirstSeq: 1, LastSeq: 2, Input: 1912, Output: 51, Cache: 4096, CostUSD: 0.0034, Estimated: true}})
	q.drain()
	c := cardsByRow(tr)[1]
	if c == nil {
		t.Fatal("the completion card is not on screen")
	}
	d := fyne.CurrentApp().Driver()
	texts := test.TempWidgetRenderer(t, c.detail).Objects()
	if len(texts) != 1 {
		t.Fatalf("the completion line has %d lines", len(texts))
	}
	line := texts[0].(*canvas.Text)
	end, copyX := d.AbsolutePositionForObject(line).X+line.MinSize().Width, d.AbsolutePositionForObject(c.copy).X
	if end > copyX || !strings.HasSuffix(line.Text, "…") || !strings.HasPrefix(line.Text, "✓ Completed") {
		t.Errorf("completion line %q ends at %v, the copy action starts at %v", line.Text, end, copyX)
	}
}
