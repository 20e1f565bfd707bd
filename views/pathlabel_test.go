package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// longPath is a path too long for a list column at 800 px.
const longPath = "/src/deep-manifest/tests/integration/fixtures/manifests/test_manifest_roundtrip.py"

// TestElidePath: a path that fits is kept; a longer one keeps its file name
// whole and the start of its folders, and fits the width; a name that
// cannot fit is cut in its middle.
func TestElidePath(t *testing.T) {
	test.NewTempApp(t)
	size := theme.TextSize()
	width := func(s string) float32 { return fyne.MeasureText(s, size, fyne.TextStyle{}).Width }
	cases := []struct {
		name      string
		path      string
		width     float32
		want      string // "" checks only the rules below
		prefix    string // the shown text starts with it
		suffix    string // and ends with it
		ellipsis  bool
		fitsWidth bool
	}{
		{name: "short", path: "a/b.go", width: 400, want: "a/b.go"},
		{name: "exact", path: "cmd/main.go", width: width("cmd/main.go"), want: "cmd/main.go"},
		{name: "no room yet", path: longPath, width: 0, want: longPath},
		{name: "long", path: longPath, width: 300, prefix: "/src/deep", suffix: "…/test_manifest_roundtrip.py", ellipsis: true, fitsWidth: true},
		{name: "just the name", path: longPath, width: width("…/test_manifest_roundtrip.py"), want: "…/test_manifest_roundtrip.py"},
		{name: "name too long", path: longPath, width: width("test_manifest"), prefix: "test", suffix: ".py", ellipsis: true, fitsWidth: true},
		{name: "bare name too long", path: "test_manifest_roundtrip.py", width: width("test_manifest"), prefix: "test", suffix: ".py", ellipsis: true, fitsWidth: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := elidePath(tc.path, tc.width, size, fyne.TextStyle{})
			if tc.want != "" && got != tc.want {
				t.Errorf("elidePath(%q, %v) = %q, want %q", tc.path, tc.width, got, tc.want)
			}
			if !strings.HasPrefix(got, tc.prefix) || !strings.HasSuffix(got, tc.suffix) {
				t.Errorf("elidePath(%q, %v) = %q, want %q…%q", tc.path, tc.width, got, tc.prefix, tc.suffix)
			}
			if tc.ellipsis && !strings.Contains(got, "…") {
				t.Errorf("elidePath(%q, %v) = %q, want it shortened", tc.path, tc.width, got)
			}
			if w := width(got); tc.fitsWidth && w > tc.width {
				t.Errorf("elidePath(%q, %v) = %q, %v wide", tc.path, tc.width, got, w)
			}
		})
	}
}

// TestShownPath: a path in the worktree is shown relative to it.
func TestShownPath(t *testing.T) {
	cases := []struct{ path, root, want string }{
		{"/w/repo/src/a.go", "/w/repo", "src/a.go"},
		{"/w/repo2/a.go", "/w/repo", "/w/repo2/a.go"},
		{"/w/a.go", "/w/repo", "/w/a.go"},
		{"src/a.go", "/w/repo", "src/a.go"},
		{"/w/repo/a.go", "", "/w/repo/a.go"},
	}
	for _, tc := range cases {
		if got := shownPath(tc.path, tc.root); got != tc.want {
			t.Errorf("shownPath(%q, %q) = %q, want %q", tc.path, tc.root, got, tc.want)
		}
	}
	if got := worktreeOf("/w/repo/.azureal/sessions.azs"); got != "/w/repo" {
		t.Errorf("worktreeOf = %q", got)
	}
}

// shownTexts returns the texts drawn in c and where they end on the right,
// of every visible object (pathLabels' shortened text included).
func shownTexts(t *testing.T, c fyne.Canvas) map[string]float32 {
	t.Helper()
	right, _ := shownTextsAt(c)
	return right
}

// shownTextsAt returns the texts drawn in c with where each ends on the
// right and starts on the left.
func shownTextsAt(c fyne.Canvas) (map[string]float32, map[string]float32) {
	out, left := map[string]float32{}, map[string]float32{}
	d := fyne.CurrentApp().Driver()
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch x := o.(type) {
		case *canvas.Text:
			if x.Text != "" {
				left[x.Text] = d.AbsolutePositionForObject(x).X
				out[x.Text] = left[x.Text] + x.MinSize().Width
			}
			return
		case *fyne.Container:
			for _, k := range x.Objects {
				walk(k)
			}
			return
		case fyne.Widget:
			for _, k := range test.WidgetRenderer(x).Objects() {
				walk(k)
			}
		}
	}
	walk(c.Content())
	return out, left
}

// assertRowWhole checks that c shows a text holding name, and the counts,
// both inside width.
func assertRowWhole(t *testing.T, c fyne.Canvas, width float32, name, counts string) {
	t.Helper()
	texts := shownTexts(t, c)
	var gotName, gotCounts bool
	for s, right := range texts {
		if strings.Contains(s, name) && strings.HasSuffix(s, name) {
			gotName = true
			if right > width {
				t.Errorf("%q ends at %v, past %v", s, right, width)
			}
		}
		if s == counts {
			gotCounts = true
			if right > width {
				t.Errorf("counts %q end at %v, past %v", s, right, width)
			}
		}
	}
	if !gotName || !gotCounts {
		var all []string
		for s := range texts {
			all = append(all, s)
		}
		t.Errorf("want %q and %q shown whole, shown: %q", name, counts, all)
	}
}

const roundtrip = "test_manifest_roundtrip.py"

// TestPathRowsAt800: at 800 px, the session's Files tab, Insights › Files
// and Recent edits show a long path's file name and its counts whole,
// the path shortened in the middle and relative to the worktree.
func TestPathRowsAt800(t *testing.T) {
	test.NewTempApp(t)
	files := []InsightFile{
		{Store: "/w/repo/.azureal/sessions.azs", SessionID: 12, Path: longPath, Action: "edit", Count: 2},
		{Store: "/w/repo/.azureal/sessions.azs", SessionID: 12, Path: longPath, Action: "read", Count: 3},
		{Store: "/w/repo/.azureal/sessions.azs", SessionID: 12, Path: "/w/repo" + longPath, Action: "write", Count: 1},
	}
	t.Run("Files tab", func(t *testing.T) {
		p := NewFilesPanel(&fakeInsights{}, false)
		w := test.NewTempWindow(t, p.Content())
		w.Resize(fyne.NewSize(800, 600))
		p.SetFiles(files)
		assertRowWhole(t, w.Canvas(), 800, roundtrip, "edit ×2, read ×3")
		assertRowWhole(t, w.Canvas(), 800, roundtrip, "write ×1")
		if texts := shownTexts(t, w.Canvas()); !hasPrefixKey(texts, "src/deep") {
			t.Errorf("the path in the worktree is not relative: %v", texts)
		}
		if _, left := shownTextsAt(w.Canvas()); left["edit ×2, read ×3"] != left["write ×1"] {
			t.Errorf("counts start at x %v and %v, want one column", left["edit ×2, read ×3"], left["write ×1"])
		}
	})
	t.Run("Insights Files", func(t *testing.T) {
		v := NewInsightsView(&fakeInsights{}, []InsightScopeOption{{Label: "Project"}})
		w := test.NewTempWindow(t, v.Content())
		w.Resize(fyne.NewSize(800, 600))
		v.tabs.SelectIndex(2)
		v.SetData(InsightData{Files: files})
		assertRowWhole(t, w.Canvas(), 800, roundtrip, "edit ×2, read ×3")
		if _, ok := shownTexts(t, w.Canvas())["S12"]; !ok {
			t.Errorf("the rows do not name their session S12: %v", shownTexts(t, w.Canvas()))
		}
	})
	t.Run("Recent edits", func(t *testing.T) {
		v := NewRecentEditsView(&fakeRecent{})
		w := test.NewTempWindow(t, v.Content())
		w.Resize(fyne.NewSize(800, 600))
		v.SetEdits([]RecentEdit{{Ref: SessionRef{StorePath: "/w/repo/.azureal/sessions.azs", ID: 12},
			Session: "make the manifest parser round-trip every field it reads", Worktree: "feature-manifest",
			Path: longPath, Action: "edit", Count: 14, Seq: 40, At: "2026-11-25 14:03:09"}})
		assertRowWhole(t, w.Canvas(), 800, roundtrip, "edit ×14")
		if !hasPrefixKey(shownTexts(t, w.Canvas()), "2026-11-25 14:03 · feature-manifest") {
			t.Errorf("the row does not say when and where: %v", shownTexts(t, w.Canvas()))
		}
	})
}

func hasPrefixKey(m map[string]float32, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// TestPathLabelResize: the label shortens its path again when resized,
// and its tip is the whole path only when it is shortened.
func TestPathLabelResize(t *testing.T) {
	test.NewTempApp(t)
	r := newPathRow(nil)
	r.set("", longPath, longPath, "edit ×1")
	w := test.NewTempWindow(t, r.box)
	w.Resize(fyne.NewSize(1600, 100))
	if got := r.path.shown(); got != longPath {
		t.Errorf("at 1600 px shown %q, want it whole", got)
	}
	tip := r.box.Objects[1].(*hoverTip)
	if got := tip.tipText(); got != "" {
		t.Errorf("tip of a whole path %q, want none", got)
	}
	w.Resize(fyne.NewSize(400, 100))
	if got := r.path.shown(); !strings.HasSuffix(got, "…/"+roundtrip) {
		t.Errorf("at 400 px shown %q", got)
	}
	if got := tip.tipText(); got != longPath {
		t.Errorf("tip %q, want %q", got, longPath)
	}
}
