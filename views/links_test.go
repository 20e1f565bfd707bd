package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// linkCases are Markdown an agent, a tool or a teammate can write into a
// card: links is what tapping each remaining link sends to OpenLink, text
// what the card must show of the links made text.
var linkCases = []struct {
	name  string
	md    string
	links []string
	text  []string
}{
	{"https", "[docs](https://example.com/a)", []string{"https://example.com/a"}, []string{"docs"}},
	{"upper case https", "[docs](HTTPS://example.com/a)", []string{"https://example.com/a"}, nil},
	{"mailto", "[mail](mailto:a@example.com)", []string{"mailto:a@example.com"}, nil},
	{"lazuli", "[S1](lazuli://open?session=1&event=2)", []string{"lazuli://open?session=1&event=2"}, nil},
	{"javascript", "[x](javascript:alert(1))", nil, []string{"x (javascript:alert(1))"}},
	{"mixed case javascript", "[x](JaVaScRiPt:alert(1))", nil, []string{"x (javascript:alert(1))"}},
	{"control before javascript", "[x](\x01javascript:alert(1))", nil, []string{"x"}},
	{"file", "[passwd](file:///etc/passwd)", nil, []string{"passwd (file:///etc/passwd)"}},
	{"ssh", "[box](ssh://evil.example)", nil, []string{"box (ssh://evil.example)"}},
	{"custom scheme", "[open](vscode://file/etc/passwd)", nil, []string{"open (vscode://file/etc/passwd)"}},
	{"scheme-relative", "[x](//evil.example/x)", nil, []string{"x (//evil.example/x)"}},
	{"relative", "[notes](notes.md)", nil, []string{"notes (notes.md)"}},
	{"autolink file", "<file:///etc/passwd>", nil, []string{"file:///etc/passwd"}},
	{"autolink javascript", "<JAVASCRIPT:alert(1)>", nil, []string{"javascript:alert(1)"}},
	{"autolink https", "<https://example.com>", []string{"https://example.com"}, nil},
	{"reference", "[x][r]\n\n[r]: file:///etc/passwd", nil, []string{"x (file:///etc/passwd)"}},
	{"reference https", "[x][r]\n\n[r]: https://example.com", []string{"https://example.com"}, nil},
	{"image file", "![secret](file:///etc/passwd)", nil, []string{"[image] (file:///etc/passwd)"}},
	{"image relative", "![pic](pic.png)", nil, []string{"[image]"}},
	{"image https", "![pic](https://example.com/p.png \"chart\")", []string{"https://example.com/p.png"}, []string{"[image: chart]"}},
	{"bare urls stay text", "see https://example.com and file:///etc/passwd", nil, []string{"file:///etc/passwd"}},
	{"in a list", "- [a](javascript:alert(1))\n- [b](https://example.com)", []string{"https://example.com"}, []string{"a (javascript:alert(1))"}},
	{"in a table", "| a |\n|---|\n| [x](file:///etc/passwd) |", nil, []string{"x (file:///etc/passwd)"}},
	{"in a heading", "## [x](ssh://evil.example)", nil, []string{"x (ssh://evil.example)"}},
	{"bold link", "**[x](javascript:alert(1))**", nil, []string{"x (javascript:alert(1))"}},
}

// linkSegments lists the links and images under segs, and their text.
func linkSegments(segs []widget.RichTextSegment) (links []*widget.HyperlinkSegment, images int, text string) {
	var b strings.Builder
	var walk func([]widget.RichTextSegment)
	walk = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch seg := s.(type) {
			case *widget.HyperlinkSegment:
				links = append(links, seg)
				b.WriteString(seg.Text)
			case *widget.ImageSegment:
				images++
			case *widget.ParagraphSegment:
				walk(seg.Texts)
			case *widget.ListSegment:
				walk(seg.Items)
			case *widget.TableSegment:
				for _, c := range seg.Headers {
					walk(c)
				}
				for _, r := range seg.Rows {
					for _, c := range r {
						walk(c)
					}
				}
			default:
				b.WriteString(s.Textual())
			}
			b.WriteByte('\n')
		}
	}
	walk(segs)
	return links, images, b.String()
}

// checkLinks fails unless segs hold exactly the links want, each opening
// through the recorder and not by itself, no image, and the text wantText.
func checkLinks(t *testing.T, md string, segs []widget.RichTextSegment, opened *[]string, want, wantText []string) {
	t.Helper()
	links, images, text := linkSegments(segs)
	if images != 0 {
		t.Errorf("Markdown %q: %d images left to load", md, images)
	}
	*opened = nil
	for _, l := range links {
		if l.OnTapped == nil {
			t.Errorf("Markdown %q: link %q to %v opens by itself", md, l.Text, l.URL)
			continue
		}
		l.OnTapped()
	}
	if strings.Join(*opened, " ") != strings.Join(want, " ") {
		t.Errorf("Markdown %q: links open %q, want %q", md, *opened, want)
	}
	for _, w := range wantText {
		if !strings.Contains(text, w) {
			t.Errorf("Markdown %q: text %q, want it to hold %q", md, text, w)
		}
	}
}

func TestSafeMarkdown(t *testing.T) {
	test.NewTempApp(t)
	for _, tc := range linkCases {
		t.Run(tc.name, func(t *testing.T) {
			var opened []string
			segs := safeMarkdown(tc.md, func(raw string) { opened = append(opened, raw) })
			checkLinks(t, tc.md, segs, &opened, tc.links, tc.text)
		})
	}
}

// An assistant card of a transcript renders every case with its links
// made safe; tapping a link's widget sends the OpenLink intent.
func TestTranscriptCardLinks(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	tr := NewTranscript(a)
	q := &postQueue{}
	tr.rows.post = q.post
	w := test.NewTempWindow(t, tr.Content())
	w.Resize(fyne.NewSize(800, 8000))
	var evs []codec.Event
	for _, tc := range linkCases {
		evs = append(evs, codec.AssistantText(tc.md))
	}
	tr.SetSession(store.Session{ID: 1}, stored(evs...), nil)
	q.drain()
	cards := cardsByRow(tr)
	for i, tc := range linkCases {
		t.Run(tc.name, func(t *testing.T) {
			c := cards[i]
			if c == nil || c.md == nil || !c.md.Visible() {
				t.Fatalf("row %d shows no Markdown", i)
			}
			var opened []string
			a.calls = nil
			checkLinks(t, tc.md, c.md.Segments, &opened, nil, tc.text) // segments: no intent recorded here
			var sent []string
			for _, call := range a.calls {
				sent = append(sent, strings.TrimPrefix(call, "link "))
			}
			if strings.Join(sent, " ") != strings.Join(tc.links, " ") {
				t.Errorf("Markdown %q: links send %q, want %q", tc.md, sent, tc.links)
			}
			a.calls = nil
			for _, h := range objectsOf[*widget.Hyperlink](c.md) {
				test.TapAt(h, fyne.NewPos(h.MinSize().Width/2, h.Size().Height/2)) // on its text (leading)
			}
			if len(a.calls) != len(tc.links) {
				t.Errorf("Markdown %q: tapping the link widgets sent %q, want %d links", tc.md, a.calls, len(tc.links))
			}
		})
	}
}
