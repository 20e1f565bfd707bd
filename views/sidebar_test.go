package views

import (
	"fmt"
	"image/color"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// sidebarNow is the sidebar clock of the tests.
var sidebarNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func boolPtr(b bool) *bool    { return &b }
func int64Ptr(n int64) *int64 { return &n }

// sampleGroups: two worktrees; main has a running, a succeeded, a failed
// and an unknown session.
func sampleGroups() []WorktreeGroup {
	return []WorktreeGroup{
		{
			Worktree: "main", StorePath: "/p/a.azs",
			Sessions: []store.Session{
				{ID: 4, Name: "Fix login", Created: "2026-11-22 11:55:00", MessageCount: 6, EventCount: 40},
				{ID: 3, Created: "2026-11-22 09:00:00", Completed: boolPtr(true), DurationMS: int64Ptr(42_000), MessageCount: 2, EventCount: 9},
				{ID: 2, Name: "Refactor store", Created: "2026-11-19 12:00:00", Completed: boolPtr(false), DurationMS: int64Ptr(185_000), MessageCount: 12, EventCount: 1},
				{ID: 1, Name: "Docs", Created: "2026-08-01 12:00:00", MessageCount: 1},
			},
			Running: map[int64]bool{4: true},
		},
		{
			Worktree: "feature/login", StorePath: "/p/b.azs",
			Sessions: []store.Session{{ID: 1, Name: "Login form", Created: "bad time", Completed: boolPtr(true), DurationMS: int64Ptr(500)}},
		},
	}
}

// newTestSidebar shows sampleGroups in a 320×420 window.
func newTestSidebar(t *testing.T) (*Sidebar, *fakeActions, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	a := &fakeActions{}
	s := NewSidebar(a)
	s.now = func() time.Time { return sidebarNow }
	w := test.NewTempWindow(t, s.Content())
	w.Resize(fyne.NewSize(320, 420))
	s.Apply(sampleGroups())
	return s, a, w
}

// rowSummary renders a row view-model as one line.
func rowSummary(r sidebarRow) string {
	if r.header {
		return "# " + r.title + " (" + r.msgs + ")"
	}
	return strings.Join([]string{r.badge + ":" + string(r.badgeName), r.title, r.duration + ":" + string(r.durName), r.msgs}, " | ")
}

func TestSidebarApplyRows(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	want := []string{
		"# main (4 sessions)",
		"●:success | Fix login | : | [6 msgs]",
		"✓:success | S3 | 42s:success | [2 msgs]",
		"✗:error | Refactor store | 3m:error | [12 msgs]",
		"○:placeholder | Docs | : | [1 msg]",
		"# feature/login (1 session)",
		"✓:success | Login form | 0s:success | [0 msgs]",
	}
	if s.items.length() != len(want) {
		t.Fatalf("length() = %d, want %d", s.items.length(), len(want))
	}
	for i, r := range s.rows {
		if got := rowSummary(r); got != want[i] {
			t.Errorf("row %d = %q, want %q", i, got, want[i])
		}
	}
}

func TestSidebarRenderedRows(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	byName := map[string]*sidebarItem{}
	for _, it := range objectsOf[*sidebarItem](s.list) {
		if it.row != nil && !it.row.header {
			byName[it.row.title] = it
		}
	}
	tests := []struct {
		name, badge string
		color       fyne.ThemeColorName
		duration    string
		when        string
	}{
		{"Fix login", "●", theme.ColorNameSuccess, "", "5m ago"},
		{"S3", "✓", theme.ColorNameSuccess, "42s", "3h ago"},
		{"Refactor store", "✗", theme.ColorNameError, "3m", "3d ago"},
		{"Docs", "○", theme.ColorNamePlaceHolder, "", "3mo ago"},
		{"Login form", "✓", theme.ColorNameSuccess, "0s", "bad time"},
	}
	for _, tt := range tests {
		it := byName[tt.name]
		if it == nil {
			t.Fatalf("no rendered row %q", tt.name)
		}
		if it.badge.Text != tt.badge || it.badge.Color != theme.Color(tt.color) {
			t.Errorf("%s: badge %q %v, want %q %s", tt.name, it.badge.Text, it.badge.Color, tt.badge, tt.color)
		}
		if it.duration.Text != tt.duration || it.durBox.Hidden != (tt.duration == "") {
			t.Errorf("%s: duration %q (hidden %v), want %q", tt.name, it.duration.Text, it.durBox.Hidden, tt.duration)
		}
		if it.when.Text != tt.when {
			t.Errorf("%s: time %q, want %q", tt.name, it.when.Text, tt.when)
		}
	}
	if got, want := byName["S3"].whenTip.tipText(), "(2026-11-22 09:00:00 UTC)"; !strings.Contains(got, want) {
		t.Errorf("exact time tip = %q, want it to contain %q", got, want)
	}
}

// TestSidebarRunningDotIsGreen checks the running dot ● in Fyne's own
// theme, both variants: a green success colour.
func TestSidebarRunningDotIsGreen(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	test.ApplyTheme(t, theme.DefaultTheme())
	s.Apply(sampleGroups())
	var dot *canvas.Text
	for _, it := range objectsOf[*sidebarItem](s.list) {
		if it.row != nil && it.row.title == "Fix login" {
			dot = it.badge
		}
	}
	if dot == nil || dot.Text != "●" || dot.Color != theme.Color(theme.ColorNameSuccess) {
		t.Fatalf("running row badge = %v, want ● in the success colour", dot)
	}
	for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		c := color.NRGBAModel.Convert(theme.DefaultTheme().Color(theme.ColorNameSuccess, v)).(color.NRGBA)
		if int(c.G) < int(c.R)+40 || int(c.G) < int(c.B)+40 {
			t.Errorf("variant %d: success colour %v is not green", v, c)
		}
	}
}

func TestSidebarFilter(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	tests := []struct {
		query string
		want  []string
	}{
		{"LOGIN", []string{"main", "Fix login", "feature/login", "Login form"}},
		{"s3", []string{"main", "S3"}},
		{"nothing", nil},
		{"", []string{"main", "Fix login", "S3", "Refactor store", "Docs", "feature/login", "Login form"}},
	}
	for _, tt := range tests {
		s.filters.entry.SetText(tt.query)
		var got []string
		for _, r := range s.rows {
			got = append(got, r.title)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("filter %q shows %q, want %q", tt.query, got, tt.want)
		}
	}
}

// tapRow taps the rendered row titled name.
func tapRow(t *testing.T, s *Sidebar, w fyne.Window, name string) {
	t.Helper()
	for _, it := range objectsOf[*sidebarItem](s.list) {
		if it.row != nil && it.row.title == name && it.Visible() {
			pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(it)
			test.TapCanvas(w.Canvas(), pos.AddXY(60, it.Size().Height/2))
			return
		}
	}
	t.Fatalf("no rendered row %q", name)
}

func TestSidebarSelect(t *testing.T) {
	s, a, w := newTestSidebar(t)
	tapRow(t, s, w, "Refactor store")
	tapRow(t, s, w, "main") // a header: ignored, selection kept
	if got, want := a.String(), "select /p/a.azs#2"; got != want {
		t.Errorf("intents = %q, want %q", got, want)
	}
	if ref, ok := s.Selected(); !ok || ref != (SessionRef{"/p/a.azs", 2}) {
		t.Errorf("Selected() = %v, %v", ref, ok)
	}
	s.Apply(sampleGroups()) // a refresh keeps the selection quietly
	if ref, _ := s.Selected(); ref.ID != 2 || s.rename.Disabled() || len(a.calls) != 1 {
		t.Errorf("after Apply: selected %v, rename disabled %v, intents %q", ref, s.rename.Disabled(), a)
	}
}

func TestSidebarKeyboard(t *testing.T) {
	s, a, w := newTestSidebar(t)
	w.Canvas().Focus(s.list) // highlights the first session (no header)
	for _, k := range []fyne.KeyName{fyne.KeyDown, fyne.KeyReturn} {
		s.list.TypedKey(&fyne.KeyEvent{Name: k})
	}
	if got, want := a.String(), "select /p/a.azs#3"; got != want {
		t.Errorf("Down, Return: intents = %q, want %q", got, want)
	}
	tapRow(t, s, w, "Docs")
	for _, k := range []fyne.KeyName{fyne.KeyUp, fyne.KeyEnter} {
		s.list.TypedKey(&fyne.KeyEvent{Name: k})
	}
	if got, want := a.String(), "select /p/a.azs#3; select /p/a.azs#1; select /p/a.azs#2"; got != want {
		t.Errorf("tap Docs, Up, Enter: intents = %q, want %q", got, want)
	}
}

func TestSidebarNewSession(t *testing.T) {
	s, a, w := newTestSidebar(t)
	test.Tap(s.newBtn)
	tapRow(t, s, w, "Login form")
	test.Tap(s.newBtn)
	if got, want := a.String(), "new /p/a.azs main; select /p/b.azs#1; new /p/b.azs feature/login"; got != want {
		t.Errorf("intents = %q, want %q", got, want)
	}
}

func TestSidebarRename(t *testing.T) {
	s, a, w := newTestSidebar(t)
	if !s.rename.Disabled() {
		t.Error("Rename is enabled with no selection")
	}
	tapRow(t, s, w, "S3")
	a.calls = nil

	test.Tap(s.rename)
	entry := objectsOf[*widget.Entry](w.Canvas().Overlays().Top())[0]
	if entry.Text != "S3" {
		t.Errorf("rename entry = %q, want the current name S3", entry.Text)
	}
	if got := entry.SelectedText(); got != "S3" {
		t.Errorf("rename entry selects %q, want the whole current name (typing replaces it)", got)
	}
	if w.Canvas().Focused() != entry {
		t.Error("rename entry is not focused")
	}
	test.Type(entry, "Throwaway")
	if entry.Text != "Throwaway" {
		t.Errorf("typing into the prefilled entry gives %q, want it to replace the name", entry.Text)
	}
	test.Tap(overlayButton(t, w.Canvas(), "Cancel"))
	if len(a.calls) != 0 {
		t.Fatalf("Cancel sent %q", a)
	}

	test.Tap(s.rename)
	entry = objectsOf[*widget.Entry](w.Canvas().Overlays().Top())[0]
	entry.SetText("  Login bug  ")
	if len(a.calls) != 0 {
		t.Fatalf("typing sent %q before confirmation", a)
	}
	test.Tap(overlayButton(t, w.Canvas(), "Rename"))
	if got, want := a.String(), `rename /p/a.azs#3 "Login bug"`; got != want {
		t.Errorf("intents = %q, want %q", got, want)
	}
}

func TestSidebarDelete(t *testing.T) {
	s, a, w := newTestSidebar(t)
	tapRow(t, s, w, "Fix login")
	a.calls = nil

	test.Tap(s.delete)
	msg := overlayText(w.Canvas())
	if !strings.Contains(msg, "“Fix login”") || !strings.Contains(msg, "40 events") {
		t.Errorf("confirmation says %q, want the name and the event count", msg)
	}
	test.Tap(overlayButton(t, w.Canvas(), "Cancel"))
	if len(a.calls) != 0 {
		t.Fatalf("Cancel sent %q", a)
	}
	test.Tap(s.delete)
	test.Tap(overlayButton(t, w.Canvas(), "Delete"))
	if got, want := a.String(), "delete /p/a.azs#4"; got != want {
		t.Errorf("intents = %q, want %q", got, want)
	}
}

func TestRelativeTime(t *testing.T) {
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{10 * time.Second, "just now"},
		{5 * time.Minute, "5m ago"},
		{3*time.Hour + 59*time.Minute, "3h ago"},
		{3 * 24 * time.Hour, "3d ago"},
		{65 * 24 * time.Hour, "2mo ago"},
		{800 * 24 * time.Hour, "2y ago"},
	}
	for _, tt := range tests {
		if got := relativeTime(sidebarNow, sidebarNow.Add(-tt.ago)); got != tt.want {
			t.Errorf("relativeTime(-%v) = %q, want %q", tt.ago, got, tt.want)
		}
	}
}

func TestSidebarMarkup(t *testing.T) {
	s, _, w := newTestSidebar(t)
	tapRow(t, s, w, "S3")
	test.AssertRendersToMarkup(t, "sidebar.xml", w.Canvas())
}

// groupsOf makes n sessions spread over 5 worktrees.
func groupsOf(n int) []WorktreeGroup {
	groups := make([]WorktreeGroup, 5)
	for i := range groups {
		groups[i] = WorktreeGroup{Worktree: fmt.Sprintf("feature/%d", i), StorePath: fmt.Sprintf("/p/%d.azs", i),
			Running: map[int64]bool{1: true}}
	}
	for i := range n {
		g := &groups[i%5]
		s := store.Session{ID: int64(i + 1), Name: fmt.Sprintf("Session %d", i), Created: "2026-11-20 10:00:00",
			MessageCount: int64(i % 50), EventCount: int64(i)}
		if i%3 == 0 {
			s.Completed, s.DurationMS = boolPtr(i%2 == 0), int64Ptr(int64(i)*1000)
		}
		g.Sessions = append(g.Sessions, s)
	}
	return groups
}

func BenchmarkSidebarApply2000(b *testing.B) {
	test.NewTempApp(b)
	s := NewSidebar(&fakeActions{})
	w := test.NewTempWindow(b, s.Content())
	w.Resize(fyne.NewSize(320, 800))
	groups := groupsOf(2000)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		s.Apply(groups)
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/apply")
}

// A list that has not counted messages yet (MessageCount -1, from
// store.ListSessionsQuick) shows no count rather than "[-1 msgs]".
func TestSidebarUncountedMessages(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	groups := sampleGroups()
	for i := range groups[0].Sessions {
		groups[0].Sessions[i].MessageCount = -1
	}
	s.Apply(groups)
	for _, r := range s.rows {
		if !r.header && r.title != "Login form" && r.msgs != "" {
			t.Errorf("row %q shows %q", r.title, r.msgs)
		}
	}
	if got := rowSummary(s.rows[len(s.rows)-1]); !strings.HasSuffix(got, "[0 msgs]") {
		t.Errorf("a counted row lost its count: %q", got)
	}
}

// A group header too long for the sidebar is cut with an ellipsis before
// its session count instead of running under it.
func TestSidebarLongHeaderTruncated(t *testing.T) {
	s, _, w := newTestSidebar(t)
	groups := sampleGroups()
	long := "feature/" + strings.Repeat("a-very-long-branch-name-", 4)
	groups[1].Worktree = long
	s.Apply(groups)
	w.Resize(fyne.NewSize(320, 420))
	var header *sidebarItem
	for _, it := range objectsOf[*sidebarItem](s.list) {
		if it.row != nil && it.row.header && it.row.title == long {
			header = it
		}
	}
	if header == nil {
		t.Fatal("the long header is not shown")
	}
	title, count := header.headerTitle, header.headerCount
	if !strings.HasSuffix(title.Text, "…") || !strings.HasPrefix(long, strings.TrimSuffix(title.Text, "…")) {
		t.Errorf("header shows %q, want a prefix of %q with an ellipsis", title.Text, long)
	}
	if end := title.Position().X + title.Size().Width; end > count.Position().X {
		t.Errorf("title ends at %v, over the count at %v", end, count.Position().X)
	}
	if count.Text != "1 session" {
		t.Errorf("count %q", count.Text)
	}
}

func TestFitText(t *testing.T) {
	size, style := float32(14), fyne.TextStyle{Bold: true}
	if got := fitLine("main", 1000, size, style); got != "main" {
		t.Errorf("a fitting text was changed to %q", got)
	}
	width := fyne.MeasureText("feature/lo…", size, style).Width
	if got := fitLine("feature/login-form", width, size, style); got != "feature/lo…" {
		t.Errorf("fitLine = %q, want %q", got, "feature/lo…")
	}
	if got := fitLine("feature", 0, size, style); got != "…" {
		t.Errorf("no room: %q, want just the ellipsis", got)
	}
}

// TestSidebarShowsLastActivityAndInterrupted: a session created months ago
// and continued an hour ago shows "1h ago" (its place in the list, which
// is ordered by last activity), with both times in its tip; a session
// whose last turn was interrupted has its own badge, not ✗.
func TestSidebarShowsLastActivityAndInterrupted(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	s.Apply([]WorktreeGroup{{Worktree: "main", StorePath: "/p/a.azs", Sessions: []store.Session{
		{ID: 2, Name: "Old but busy", Created: "2026-02-01 12:00:00", LastActive: "2026-11-22 11:00:00", MessageCount: 9},
		{ID: 1, Name: "Stopped", Created: "2026-11-20 12:00:00", LastActive: "2026-11-20 12:00:00", Completed: boolPtr(false),
			DurationMS: int64Ptr(65_000), Interrupted: true},
	}}})
	byName := map[string]*sidebarItem{}
	for _, it := range objectsOf[*sidebarItem](s.list) {
		if it.row != nil && !it.row.header {
			byName[it.row.title] = it
		}
	}
	busy, stopped := byName["Old but busy"], byName["Stopped"]
	if busy == nil || stopped == nil {
		t.Fatalf("rows %v", byName)
	}
	if busy.when.Text != "1h ago" {
		t.Errorf("continued session shows %q, want its last activity (1h ago)", busy.when.Text)
	}
	if tip := busy.whenTip.tipText(); !strings.Contains(tip, "Last active") || !strings.Contains(tip, "(2026-11-22 11:00:00 UTC)") ||
		!strings.Contains(tip, "(2026-02-01 12:00:00 UTC)") {
		t.Errorf("tip %q, want the last activity and the created time", tip)
	}
	if stopped.when.Text != "2d ago" || strings.Contains(stopped.whenTip.tipText(), "Last active") {
		t.Errorf("a session not continued: %q, tip %q", stopped.when.Text, stopped.whenTip.tipText())
	}
	if stopped.badge.Text != "■" || stopped.badge.Color != theme.Color(theme.ColorNameWarning) ||
		stopped.duration.Text != "interrupted 1m" || stopped.duration.Color != theme.Color(theme.ColorNameWarning) {
		t.Errorf("interrupted session: badge %q %v, duration %q", stopped.badge.Text, stopped.badge.Color, stopped.duration.Text)
	}
}

// TestSidebarUnfinishedSession: a session whose last Complete (a failed,
// interrupted turn) was followed by more turns that stored none (a Codex
// rollout without task_complete) shows ○ without a duration, not "✗ 7m".
func TestSidebarUnfinishedSession(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	s.Apply([]WorktreeGroup{{Worktree: "main", StorePath: "/p/a.azs", Sessions: []store.Session{
		{ID: 1, Name: "Rollout", Created: "2026-11-20 12:00:00", Completed: boolPtr(false),
			DurationMS: int64Ptr(431_131), Unfinished: true},
	}}})
	for _, it := range objectsOf[*sidebarItem](s.list) {
		if it.row == nil || it.row.header {
			continue
		}
		if it.badge.Text != "○" || it.duration.Text != "" {
			t.Errorf("unfinished session: badge %q, duration %q, want ○ and none", it.badge.Text, it.duration.Text)
		}
		return
	}
	t.Fatal("no session row")
}

// TestSidebarOrderedByShownTime: the rows are ordered by the time they
// show, the last activity, whatever the store's order (by the last event
// written: an import writes old sessions last); ties keep the store's
// order, and a session without a readable time goes last.
func TestSidebarOrderedByShownTime(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	s.Apply([]WorktreeGroup{{Worktree: "main", StorePath: "/p/a.azs", Sessions: []store.Session{
		{ID: 5, Name: "imported last", Created: "2026-11-17 12:00:00", LastActive: "2026-11-17 12:00:00"},
		{ID: 9, Name: "no time", Created: "bad"},
		{ID: 4, Name: "continued", Created: "2026-10-01 12:00:00", LastActive: "2026-11-22 11:44:00"},
		{ID: 3, Name: "tie first", Created: "2026-11-22 10:00:00"},
		{ID: 2, Name: "tie second", Created: "2026-11-22 10:00:00"},
		{ID: 1, Name: "recent", Created: "2026-11-22 11:40:00", LastActive: "2026-11-22 11:50:00"},
	}}})
	var got, shown []string
	for _, r := range s.rows[1:] {
		got = append(got, r.title)
		when := r.rawTime
		if r.activeOK {
			when = relativeTime(sidebarNow, r.active)
		}
		shown = append(shown, when)
	}
	want := []string{"recent", "continued", "tie first", "tie second", "imported last", "no time"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q (showing %q), want %q", got, shown, want)
	}
}

// onePlural matches a count of one followed by a plural noun, as in
// "1 sessions" or "1 row(s)".
var onePlural = regexp.MustCompile(`(^|[^0-9,.])1 ((sessions|events|msgs|rows|changes|turns|sub-agents|duplicates)\b|[a-z -]*\(s\))`)

// TestNoPluralOfOne: counts of one read "1 session", "1 msg", "1 row",
// never "1 sessions" or "1 row(s)" (display.Plural everywhere).
func TestNoPluralOfOne(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(900, 700))
	var texts []string
	s := NewSidebar(&fakeActions{})
	s.Apply([]WorktreeGroup{{Worktree: "main", StorePath: "/p/a.azs", Sessions: []store.Session{{ID: 1, Created: "2026-11-22 11:00:00", MessageCount: 1}}}})
	for _, r := range s.rows {
		texts = append(texts, r.msgs)
	}
	ShowStorePreview(w, StorePreview{Path: "/tmp/one.azs", Events: 1, Target: "main",
		Sessions: []store.Session{{ID: 1, EventCount: 1}}, Duplicates: map[int64]int64{1: 1}}, func() {}, func() {})
	texts = append(texts, overlayText(w.Canvas()))
	c := NewSQLConsole(nil, nil, nil)
	c.SetResult(SQLTable{Columns: []string{"n"}, Rows: [][]string{{"1"}}})
	texts = append(texts, c.status.Text, changes(1))
	d := ShowNativeImport(w, nil)
	d.SetRows([]NativeRow{{Key: "k", Agent: "claude", Subagents: 1, State: "new"}}, nil)
	texts = append(texts, overlayText(w.Canvas()))
	for _, txt := range texts {
		for _, m := range onePlural.FindAllString(txt, -1) {
			t.Errorf("%q says %q", txt, m)
		}
	}
}
