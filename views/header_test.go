package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/store"
)

// TestHeaderNarrow lays the main view out from wide down to MinWindowSize:
// the title, the meter's bar and its text never draw over each other, the
// meter never reaches into the sidebar, and the view asks no more than
// MinWindowSize (so that size is reachable) while the window is held to it.
func TestHeaderNarrow(t *testing.T) {
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	w := test.NewTempWindow(t, m.Content())
	m.Sidebar().Apply(sampleGroups())
	s := store.Session{ID: 7, Name: "Refactor the session store so that every import path names and dates sessions alike", Worktree: "feature/import-names",
		CharsSinceCompaction: 123_456}
	m.ShowSession(SessionRef{"/p/a.azs", 7}, s, sampleEvents(t), nil, 0)
	if min := m.Content().MinSize(); min.Width > MinWindowSize.Width || min.Height > MinWindowSize.Height {
		t.Errorf("the view needs %v, more than MinWindowSize %v", min, MinWindowSize)
	}
	for _, width := range []float32{1400, 1000, 816, 800, 700, 640} {
		w.Resize(fyne.NewSize(width, 600))
		d := fyne.CurrentApp().Driver()
		title, meter := m.head.title, m.meter
		tPos, mPos := d.AbsolutePositionForObject(title), d.AbsolutePositionForObject(meter)
		side := d.AbsolutePositionForObject(m.sidebar.Content()).X + m.sidebar.Content().Size().Width
		if tPos.X < side {
			t.Errorf("width %v: title starts at %v, inside the sidebar (ends at %v)", width, tPos.X, side)
		}
		if tPos.X+title.Size().Width > mPos.X+0.5 {
			t.Errorf("width %v: title %v..%v overlaps the meter from %v", width, tPos.X, tPos.X+title.Size().Width, mPos.X)
		}
		if mPos.X < side || mPos.X+meter.Size().Width > width+0.5 {
			t.Errorf("width %v: meter %v..%v outside the header %v..%v", width, mPos.X, mPos.X+meter.Size().Width, side, width)
		}
		if txt := meter.text; txt.Text != "" && txt.Position().X+txt.MinSize().Width > meter.Size().Width+0.5 {
			t.Errorf("width %v: meter text %q (%v wide at %v) spills out of the %v-wide meter", width, txt.Text, txt.MinSize().Width, txt.Position().X, meter.Size().Width)
		}
		if meter.Size().Width < meter.MinSize().Width {
			t.Errorf("width %v: meter %v narrower than its bar %v", width, meter.Size().Width, meter.MinSize().Width)
		}
	}
	w.Resize(fyne.NewSize(1400, 600))
	if m.meter.text.Text != m.meter.Text() {
		t.Errorf("wide: meter shows %q, want the full text", m.meter.text.Text)
	}
	// The window driver keeps a window at least as big as its content's
	// MinSize (the test driver does not).
	if min := m.Content().MinSize(); min.Width < MinWindowSize.Width || min.Height < MinWindowSize.Height {
		t.Errorf("the view asks for %v, less than MinWindowSize %v", min, MinWindowSize)
	}
}

// TestHeaderTabsStay: what arrives after a session is shown (its usage,
// permission mode, ref chips, archive mark) never moves the tabs, so a
// click aimed at "Files" does not land on a chip; a session without any
// keeps the same header.
func TestHeaderTabsStay(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(800, 600))
	ref := SessionRef{"/p/a.azs", 7}
	m.ShowSession(ref, store.Session{ID: 7, Name: "chips", Worktree: "main"}, sampleEvents(t), nil, 0)
	d := fyne.CurrentApp().Driver()
	tabsAt := func() fyne.Position { w.Canvas().Refresh(m.Content()); return d.AbsolutePositionForObject(m.tabs) }
	before := tabsAt()
	steps := []struct {
		name string
		do   func()
	}{
		{"mode", func() { m.Header().SetPermissionMode(ref, "Ask") }},
		{"usage and chips", func() {
			m.SetSessionInsight(ref, SessionInsight{Usage: "12k in · 400 out · 1M cache · $0.42", Refs: []RefChip{
				{Kind: "pr", Value: "o/r#12", URL: "https://github.com/o/r/pull/12"}, {Kind: "branch", Value: "feature/x"}}})
		}},
		{"archive mark", func() { m.Archive().Set(ref, true) }},
		{"another session", func() {
			m.ShowSession(SessionRef{"/p/a.azs", 8}, store.Session{ID: 8, Name: "bare", Worktree: "main"}, sampleEvents(t), nil, 0)
		}},
	}
	for _, st := range steps {
		st.do()
		if got := tabsAt(); got != before {
			t.Errorf("after %s the tabs are at %v, want %v", st.name, got, before)
		}
	}
	if m.Archive().Shown() {
		t.Error("another session shows the archive mark of the one before")
	}
}

// TestArchiveMark: the header's mark shows only for the session shown,
// and Unarchive sends ArchiveSession(ref, false).
func TestArchiveMark(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	test.NewTempWindow(t, m.Content())
	ref := SessionRef{"/p/a.azs", 7}
	m.ShowSession(ref, store.Session{ID: 7, Worktree: "main"}, sampleEvents(t), nil, 0)
	m.Archive().Set(SessionRef{"/p/a.azs", 8}, true)
	if m.Archive().Shown() {
		t.Error("the mark of a session not shown is shown")
	}
	m.Archive().Set(ref, true)
	if !m.Archive().Shown() {
		t.Fatal("the archived session shown has no mark")
	}
	test.Tap(m.head.archive.button)
	if got := strings.Join(a.calls, "|"); got != "archive /p/a.azs#7 false" {
		t.Errorf("Unarchive sent %q", got)
	}
}
