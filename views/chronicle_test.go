package views

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

type chronicleIntents struct {
	links  []string
	regens []string
}

// chronicleWriters are the writers the app offers, as it builds them.
var chronicleWriters = []string{"builtin", "claude", "codex", "gemini", "qwen", "opencode", "pi", "copilot"}

func (c *chronicleIntents) OpenLink(link string) { c.links = append(c.links, link) }
func (c *chronicleIntents) Regenerate(agent, since string) {
	c.regens = append(c.regens, agent+" "+since)
}

const chronicleLink = "lazuli://open?event=4&path=%2Fw%2F.azureal%2Fsessions.azs&session=1"

var chronicleSample = ChronicleReport{Title: "Tips", Agent: "claude",
	Markdown: "# Tips — all the history\n\n- `go test` failed twice [S1#4](" + chronicleLink + ") and **S9#1 ⚠ not found**\n",
	Sessions: []string{"S1"}, Unresolved: []string{"[S9#1]"}}

// hyperlinks lists the link segments of a rendered document.
func hyperlinks(segs []widget.RichTextSegment) []*widget.HyperlinkSegment {
	var out []*widget.HyperlinkSegment
	for _, s := range segs {
		switch seg := s.(type) {
		case *widget.HyperlinkSegment:
			out = append(out, seg)
		case *widget.ListSegment:
			out = append(out, hyperlinks(seg.Items)...)
		case *widget.ParagraphSegment:
			out = append(out, hyperlinks(seg.Texts)...)
		}
	}
	return out
}

func TestChronicleViewLinksOpenTheSession(t *testing.T) {
	test.NewTempApp(t)
	a := &chronicleIntents{}
	w := test.NewTempWindow(t, nil)
	v := NewChronicleView(w, a, "all", chronicleWriters)
	w.SetContent(v.Object())
	v.Show(chronicleSample)
	links := hyperlinks(v.Document().Segments)
	if len(links) != 1 || links[0].Text != "S1#4" || links[0].OnTapped == nil {
		t.Fatalf("links = %+v, want the citation S1#4 opening in Lazuli", links)
	}
	links[0].OnTapped()
	if len(a.links) != 1 || a.links[0] != chronicleLink {
		t.Errorf("opened %v, want %s", a.links, chronicleLink)
	}
	if st := v.Status(); !strings.Contains(st, "Written by claude") || !strings.Contains(st, "⚠ 1 citation names no session or event and is marked: [S9#1]") || !strings.Contains(st, "cites 1 session ") || v.agent.Selected != "claude" {
		t.Errorf("status = %q", st)
	}
}

func TestChronicleViewCopySaveRegenerate(t *testing.T) {
	app := test.NewTempApp(t)
	a := &chronicleIntents{}
	w := test.NewTempWindow(t, nil)
	v := NewChronicleView(w, a, "all", chronicleWriters)
	w.SetContent(v.Object())
	if !v.regen.Disabled() {
		t.Error("Regenerate is enabled while the first report is written")
	}
	v.Show(chronicleSample)
	v.Copy()
	if got := app.Clipboard().Content(); got != chronicleSample.Markdown {
		t.Errorf("clipboard = %q", got)
	}
	path := filepath.Join(t.TempDir(), "tips.md")
	wr, err := storage.Writer(storage.NewFileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.SaveTo(wr); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != chronicleSample.Markdown {
		t.Errorf("saved %q", data)
	}
	v.agent.SetSelected("codex")
	v.since.SetSelected("7d")
	test.Tap(v.regen)
	if len(a.regens) != 1 || a.regens[0] != "codex 7d" || !v.regen.Disabled() || v.Status() != "Writing the report with codex…" {
		t.Errorf("regenerate: intents %v, disabled %v, status %q", a.regens, v.regen.Disabled(), v.Status())
	}
	v.ShowError(os.ErrPermission)
	if v.regen.Disabled() {
		t.Error("Regenerate stays disabled after an error")
	}
}

// A report an agent wrote can hold any link: only web and lazuli:// links
// stay links, and they open through the OpenLink intent, never by
// themselves.
func TestChronicleViewHostileLinks(t *testing.T) {
	test.NewTempApp(t)
	a := &chronicleIntents{}
	w := test.NewTempWindow(t, nil)
	v := NewChronicleView(w, a, "all", chronicleWriters)
	w.SetContent(v.Object())
	md := "Read [this](file:///etc/passwd), [that](javascript:alert(1)), <ssh://evil.example>, [docs](https://example.com) and [S1#4](" + chronicleLink + ")."
	v.Show(ChronicleReport{Title: "Tips", Agent: "claude", Markdown: md})
	var opened []string
	checkLinks(t, md, v.Document().Segments, &opened, nil,
		[]string{"this (file:///etc/passwd)", "that (javascript:alert(1))", "ssh://evil.example"})
	if want := "https://example.com " + chronicleLink; strings.Join(a.links, " ") != want {
		t.Errorf("links opened %q, want %q", a.links, want)
	}
}

// TestChronicleLegend: what a citation such as S1#4@2 names is said above
// the report while it shows one, and not for a report without citations.
func TestChronicleLegend(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	v := NewChronicleView(w, &chronicleIntents{}, "all", chronicleWriters)
	w.SetContent(v.Object())
	r := chronicleSample
	r.Legend = "Citations: S12#340 is event 340 of session S12 and S12 the whole session; each opens the transcript there."
	v.Show(r)
	if got := v.Legend(); got != r.Legend {
		t.Errorf("legend %q, want %q", got, r.Legend)
	}
	v.Show(ChronicleReport{Title: "Tips", Agent: "builtin", Markdown: "# Tips\n\nNothing to cite.\n"})
	if got := v.Legend(); got != "" {
		t.Errorf("legend of a report without citations %q, want none", got)
	}
}
