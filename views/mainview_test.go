package views

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

func TestMainViewShowSession(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	if m.Meter().Visible() || m.head.title.Text != "Lazuli" {
		t.Errorf("empty view: meter shown %v, title %q", m.Meter().Visible(), m.head.title.Text)
	}
	m.Sidebar().Apply(sampleGroups())
	s := sampleGroups()[0].Sessions[1]
	s.CharsSinceCompaction = 123_456
	m.ShowSession(SessionRef{"/p/a.azs", 3}, s, sampleEvents(t), nil, 0)
	if m.head.title.Text != "S3 · " || !m.Meter().Visible() || m.Meter().chars != 123_456 {
		t.Errorf("title %q, meter shown %v with %d", m.head.title.Text, m.Meter().Visible(), m.Meter().chars)
	}
	if m.Meter().Size().Width == 0 {
		t.Error("the meter was not laid out when shown")
	}
	if ref, ok := m.Sidebar().Selected(); !ok || ref.ID != 3 || len(a.calls) != 0 {
		t.Errorf("sidebar selection %v %v, intents %q", ref, ok, a)
	}
	if m.Transcript().rows.length() != len(sampleEvents(t)) {
		t.Errorf("transcript has %d rows", m.Transcript().rows.length())
	}
	if w := m.Sidebar().Content().Size().Width; w < sidebarWidth {
		t.Errorf("sidebar is %v wide, want at least %v", w, sidebarWidth)
	}
	m.ClearSession()
	if m.Transcript().rows.length() != 0 || m.Meter().Visible() {
		t.Error("ClearSession left the session shown")
	}
}

func TestHoverTips(t *testing.T) {
	s, _, w := newTestSidebar(t)
	var tip *hoverTip
	for _, it := range objectsOf[*sidebarItem](s.list) {
		if it.row != nil && it.row.title == "S3" {
			tip = it.whenTip
		}
	}
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(tip)
	test.MoveMouse(w.Canvas(), pos.AddXY(2, 2))
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no tip shown on hover")
	}
	labels := objectsOf[*widget.Label](top)
	if len(labels) != 1 || !strings.HasPrefix(labels[0].Text, "Created ") || !strings.Contains(labels[0].Text, "2026-11-22 09:00:00 UTC") {
		t.Errorf("tip shows %v", labels)
	}
	test.MoveMouse(w.Canvas(), fyne.NewPos(1, 1))
	if top := w.Canvas().Overlays().Top(); top != nil && top.Visible() {
		t.Error("tip still shown after the pointer left")
	}
}

func TestTranscriptAddCompaction(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 400))
	tr.SetSession(store.Session{ID: 1}, sampleEvents(t), nil)
	q.drain()
	tr.AddCompaction(store.Compaction{AfterSeq: 2, Summary: "S"})
	q.drain()
	if r := tr.rows.rows[2]; r.kind != rowCompaction || len(tr.rows.rows) != len(sampleEvents(t))+1 {
		t.Errorf("row 2 kind %d, %d rows", r.kind, len(tr.rows.rows))
	}
	if !tr.rows.atBottom() {
		t.Error("AddCompaction left the bottom")
	}
}

func TestTranscriptThemeChange(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 800))
	tr.SetSession(store.Session{ID: 1}, sampleEvents(t)[:3], nil)
	q.drain()
	test.ApplyTheme(t, theme.DefaultTheme())
	q.drain()
	user := cardsByRow(tr)[1]
	if want := withAlpha(theme.Color(theme.ColorNamePrimary), 0x26); user.bg.FillColor != want {
		t.Errorf("after a theme change the prompt card is %v, want %v", user.bg.FillColor, want)
	}
}

func TestMainViewPromptBox(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	p := m.PromptBox()
	if _, ok := p.Session(); ok || !p.entry.Disabled() {
		t.Error("the prompt box is enabled with no session shown")
	}
	m.Sidebar().Apply(sampleGroups())
	ref := SessionRef{"/p/a.azs", 3}
	m.ShowSession(ref, sampleGroups()[0].Sessions[1], sampleEvents(t), nil, 0)
	if got, ok := p.Session(); !ok || got != ref || p.entry.Disabled() {
		t.Errorf("after ShowSession the prompt box is for %v (%v), entry disabled %v", got, ok, p.entry.Disabled())
	}
	p.SetModels(sampleModels)
	p.SetSession(ref, true, "opus")
	m.ShowSession(ref, sampleGroups()[0].Sessions[1], sampleEvents(t), nil, 0) // a reload keeps the model
	if p.Model() != "opus" {
		t.Errorf("a reload of the session shown changed the model to %q", p.Model())
	}
	if pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.Content()); pos.Y < 500 || p.Content().Size().Width < 600 {
		t.Errorf("prompt box at %v, %v wide; want it below the transcript", pos, p.Content().Size().Width)
	}
	p.SetRunning(true)
	p.SetStatus("Compacting S3…", false)
	m.ClearSession()
	if _, ok := p.Session(); ok || !p.entry.Disabled() || p.running || p.statusRow.Visible() {
		t.Error("ClearSession left the prompt box enabled, running or with a status")
	}
	if len(a.calls) != 0 {
		t.Errorf("intents %q", a)
	}
}

func TestMainViewBanner(t *testing.T) {
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1000, 700))
	if m.banner.Visible() || m.Banner() != "" {
		t.Error("banner shown at start")
	}
	transcriptTop := fyne.CurrentApp().Driver().AbsolutePositionForObject(m.Transcript().Content()).Y
	m.SetBanner("This session may be compacting…")
	if !m.banner.Visible() || m.Banner() != "This session may be compacting…" || m.banner.Size().Height == 0 {
		t.Errorf("banner shown %v, text %q, size %v", m.banner.Visible(), m.Banner(), m.banner.Size())
	}
	if want := withAlpha(theme.Color(theme.ColorNameWarning), 0x40); m.banner.bg.FillColor != want {
		t.Errorf("banner background %v, want %v", m.banner.bg.FillColor, want)
	}
	if y := fyne.CurrentApp().Driver().AbsolutePositionForObject(m.Transcript().Content()).Y; y <= transcriptTop {
		t.Errorf("the transcript did not move below the banner: top %v, was %v", y, transcriptTop)
	}
	m.SetBanner("")
	if m.banner.Visible() || m.Banner() != "" {
		t.Error("banner still shown after SetBanner(\"\")")
	}
	if y := fyne.CurrentApp().Driver().AbsolutePositionForObject(m.Transcript().Content()).Y; y != transcriptTop {
		t.Errorf("transcript top %v after hiding the banner, want %v", y, transcriptTop)
	}
}

// TestMainViewImage renders the main window with a session, the banner and
// a running prompt box (testdata/mainview.png).
func TestMainViewImage(t *testing.T) {
	test.NewTempApp(t)
	fyne.CurrentApp().Settings().SetTheme(theme.DefaultTheme())
	m := NewMainView(&fakeActions{})
	m.Sidebar().now = func() time.Time { return sidebarNow }
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(1100, 720))
	m.Sidebar().Apply(sampleGroups())
	ref := SessionRef{"/p/a.azs", 4}
	s := sampleGroups()[0].Sessions[0]
	s.CharsSinceCompaction = 251_000
	m.ShowSession(ref, s, sampleEvents(t), nil, 0)
	p := m.PromptBox()
	p.SetModels(sampleModels)
	p.SetBackends(backendsOK)
	p.SetSession(ref, true, "opus")
	p.SetRunning(true)
	p.SetStatus("Compacting S3…", false)
	p.entry.SetText("Now add a --json flag to the list command and cover it with a table test.")
	m.SetBanner("This session may be compacting…")
	test.AssertRendersToImage(t, "mainview.png", w.Canvas())
}
