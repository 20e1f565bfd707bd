package app

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// insightWindow is a window over two worktrees, each with one session
// that edits a.go twice (with a commit and a branch in the second), its
// indexes built.
func insightWindow(t *testing.T) (*projectWindow, []Worktree, context.Context) {
	t.Helper()
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	dir := t.TempDir()
	wts := []Worktree{
		{Dir: filepath.Join(dir, "main"), Branch: "main", StorePath: filepath.Join(dir, "main", StoreRelPath)},
		{Dir: filepath.Join(dir, "feat"), Branch: "feat", StorePath: filepath.Join(dir, "feat", StoreRelPath)},
	}
	bg := context.Background()
	for i, wt := range wts {
		st, err := store.Open(bg, wt.StorePath)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(wt.Dir, "a.go")
		edit := func(o, n string) json.RawMessage {
			b, _ := json.Marshal(map[string]string{"file_path": path, "old_string": o, "new_string": n})
			return b
		}
		events := []codec.Event{codec.UserMessage("go"),
			codec.ToolCall("1", "Edit", &path, edit("one", "two")), codec.ToolResult("1", "Edit", &path, "ok", false),
			codec.ToolCall("2", "Edit", &path, edit("two", "three")), codec.ToolResult("2", "Edit", &path, "ok", i == 1),
			codec.ToolCall("3", "Bash", nil, json.RawMessage(`{"command":"git checkout -b topic"}`)),
			codec.ToolResult("3", "Bash", nil, "[topic 1234abc] done", false),
			codec.Complete(true, 5, 0.25)}
		u := store.Usage{Event: 7, Model: "claude-sonnet-4-5", Backend: "claude", Tokens: store.Tokens{Input: 100, Output: 10, CostUSD: 0.25}, HasCost: true}
		if _, _, err := st.Sessions().CreateWithEvents(bg, wt.Branch, "", events, u); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	pw := testWindow(t, fa, wts...)
	pw.search = newSearcher(pw)
	t.Cleanup(func() {
		pw.close()
		pw.search.closeAll()
	})
	pw.search.updateAll(pw.ctx)
	return pw, wts, pw.ctx
}

// TestInsightsAcrossWorktrees: the background pass builds the insight
// indexes with the search indexes; the window's figures sum both
// worktrees, a session scope only its session; a file's diffs come in
// order; the SQL console's query runs over both stores.
func TestInsightsAcrossWorktrees(t *testing.T) {
	pw, wts, ctx := insightWindow(t)
	d, err := computeInsights(ctx, pw, views.InsightScope{}, 7, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if d.Total.Sessions != 2 || d.Total.Input != 200 || d.Total.CostUSD != 0.5 || d.CostEstimated {
		t.Errorf("project totals %+v", d.Total)
	}
	if len(d.Days) != 7 || d.Days[6].Input != 200 {
		t.Errorf("days %+v", d.Days)
	}
	if len(d.Tools) != 2 || d.Tools[0].Calls != 4 || d.Tools[0].Errors != 1 {
		t.Errorf("tools %+v", d.Tools)
	}
	if len(d.Worktrees) != 2 || len(d.Files) != 2 {
		t.Errorf("worktrees %+v files %+v", d.Worktrees, d.Files)
	}
	s, err := computeInsights(ctx, pw, views.InsightScope{Store: wts[1].StorePath, Session: 1}, 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if s.Total.Sessions != 1 || s.Total.Input != 100 || len(s.Files) != 1 || s.Files[0].Path != "a.go" {
		t.Errorf("session scope %+v files %+v", s.Total, s.Files)
	}
	diffs, err := fileDiffs(ctx, pw, s.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 2 || diffs[0].Seq != 2 || diffs[1].Seq != 4 {
		t.Fatalf("diffs %+v", diffs)
	}
	var sources []insight.SQLSource
	for _, x := range pw.search.insightIndexes(ctx, nil) {
		sources = append(sources, insight.SQLSource{Store: x.Store().Path(), Index: x.Path()})
	}
	res, err := insight.RunSQL(ctx, sources, "SELECT COUNT(DISTINCT store), SUM(cost_usd) FROM usage", 10, time.Second*10)
	if err != nil || len(res.Rows) != 1 || !strings.HasPrefix(strings.TrimSpace(strings.Join([]string{toS(res.Rows[0][0]), toS(res.Rows[0][1])}, " ")), "2 0.5") {
		t.Errorf("sql %+v %v", res, err)
	}
}

// TestRangeWithData: the Insights window opens on the shortest range that
// holds nine in ten of the sessions, all time when the recent weeks hold
// few of them, 30 days without any.
func TestRangeWithData(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	day := func(ago int) string { return now.AddDate(0, 0, -ago).Format(time.DateOnly) }
	cases := []struct {
		name   string
		perDay map[string]int64
		want   int
	}{
		{"none", nil, 30},
		{"this week", map[string]int64{day(0): 3, day(6): 2}, 7},
		{"this month", map[string]int64{day(0): 1, day(20): 4}, 30},
		{"imported last quarter", map[string]int64{day(45): 20, day(80): 14}, 90},
		{"imported older history", map[string]int64{day(200): 25, day(400): 9}, 0},
		{"old history and a few new", map[string]int64{day(1): 2, day(300): 30}, 0},
		{"busy week, a few old", map[string]int64{day(2): 95, day(300): 5}, 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := rangeWithData(tc.perDay, now); got != tc.want {
				t.Errorf("rangeWithData(%v) = %d, want %d", tc.perDay, got, tc.want)
			}
		})
	}
}

// TestInsightsAutoRange: asked for the automatic range, computeInsights
// says which range it chose (the sessions of today: 7 days).
func TestInsightsAutoRange(t *testing.T) {
	pw, _, ctx := insightWindow(t)
	d, err := computeInsights(ctx, pw, views.InsightScope{}, views.InsightAutoRange, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if d.Range != 7 || len(d.Days) != 7 || d.Total.Sessions != 2 {
		t.Errorf("range %d, %d days, %d sessions; want 7, 7, 2", d.Range, len(d.Days), d.Total.Sessions)
	}
}

func toS(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestUsageText: the header's usage line, the estimate marked.
func TestUsageText(t *testing.T) {
	got := usageText(store.Tokens{Input: 12345, Output: 450, CacheRead: 1_000_000, CacheWrite: 200_000, CostUSD: 0.4249, CostEstimated: true})
	if want := "12.3k in · 450 out · 1.2M cache · ~$0.42"; got != want {
		t.Errorf("usageText = %q, want %q", got, want)
	}
	if got := usageText(store.Tokens{}); got != "" {
		t.Errorf("no usage: %q", got)
	}
	// A turn under a cent is not shown as free ("$0.00") beside its
	// completion row's "$0.0016".
	if got, want := usageText(store.Tokens{Input: 200, Output: 40, CostUSD: 0.0016}), "200 in · 40 out · 0 cache · $0.0016"; got != want {
		t.Errorf("usageText = %q, want %q", got, want)
	}
}

// TestSessionInsightAndRecentEdits: the shown session's usage per turn,
// files and refs come from its index; Recent Edits lists each worktree's
// edit with its session and last event; a chip without an address copies
// its value.
func TestSessionInsightAndRecentEdits(t *testing.T) {
	pw, wts, ctx := insightWindow(t)
	ref := views.SessionRef{StorePath: wts[1].StorePath, ID: 1}
	xs := pw.search.insightIndexes(ctx, []string{ref.StorePath})
	if len(xs) != 1 {
		t.Fatal("no index")
	}
	in, err := sessionInsight(ctx, xs[0], ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Turns) != 1 || in.Turns[0].FirstSeq != 1 || in.Turns[0].LastSeq != 8 || in.Turns[0].Input != 100 ||
		in.Turns[0].CostUSD != 0.25 || in.Turns[0].Estimated {
		t.Errorf("turns %+v", in.Turns)
	}
	if len(in.Files) != 1 || in.Files[0].Path != "a.go" || in.Files[0].Count != 2 || in.Files[0].SessionID != 1 {
		t.Errorf("files %+v", in.Files)
	}
	var refs []string
	for _, r := range in.Refs {
		refs = append(refs, r.Kind+" "+r.Value)
	}
	if got := strings.Join(refs, ", "); got != "branch topic, commit 1234abc" {
		t.Errorf("refs %q", got)
	}
	if !strings.Contains(in.Usage, "100 in") {
		t.Errorf("usage %q", in.Usage)
	}
	edits, err := recentEdits(ctx, pw, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) != 2 {
		t.Fatalf("edits %+v", edits)
	}
	for _, e := range edits {
		if e.Path != "a.go" || e.Action != "edit" || e.Count != 2 || e.Seq != 4 || e.Ref.ID != 1 || e.At == "" {
			t.Errorf("edit %+v", e)
		}
	}
	if one, _ := recentEdits(ctx, pw, 1); len(one) != 1 {
		t.Errorf("limit 1: %d edits", len(one))
	}
	// Choosing an edit shows its session, scrolled to the edit's event,
	// with the session's Files tab filled.
	(&recentEditsWindow{pw: pw}).OpenEdit(edits[1])
	pw.wg.Wait() // the session loads in the background
	pw.shown.mu.Lock()
	current, pending := pw.shown.current, pw.shown.showEvent
	pw.shown.mu.Unlock()
	if current != edits[1].Ref || pending != nil {
		t.Errorf("after opening %v: current %v, pending %v", edits[1].Ref, current, pending)
	}
	if got := pw.mv.SessionFiles().Rows(); len(got) != 1 || got[0] != "a.go · edit ×2" {
		t.Errorf("the shown session's Files tab: %q", got)
	}
	pw.shown.OpenRef(views.RefChip{Kind: "branch", Value: "topic"})
	if got := pw.ui.fa.Clipboard().Content(); got != "topic" {
		t.Errorf("clipboard %q", got)
	}
}

// TestSQLConsoleLimits: the window's SQL console stops a query that would
// make a value of hundreds of megabytes with a one-line reason, and reads
// a store that another program switched to WAL mode without changing a
// file of its folder.
func TestSQLConsoleLimits(t *testing.T) {
	t.Setenv(asCLIEnv, "1") // the console's child process is this test binary
	pw, wts, ctx := insightWindow(t)
	sw := &sqlWindow{pw: pw}
	sw.console = views.NewSQLConsole(sw, nil, nil)
	sw.RunSQL("SELECT hex(zeroblob(250000000))")
	pw.wg.Wait()
	if st := sw.console.Status(); !strings.HasPrefix(st, "query stopped: a value larger than") || strings.Contains(st, "\n") {
		t.Errorf("console status %q, want query stopped: a value larger than…", st)
	}
	// Five values of 60 MB each in one row: the child stops the query (by
	// its memory or by the answer's size), and none of it is allocated in
	// the window's process.
	hwm := highWaterMark(t)
	sw.RunSQL("SELECT " + strings.Repeat("printf('%.*c', 60000000, 'x'), ", 4) + "printf('%.*c', 60000000, 'y')")
	pw.wg.Wait()
	if st := sw.console.Status(); !strings.HasPrefix(st, "query stopped:") || strings.Contains(st, "\n") {
		t.Errorf("console status %q, want query stopped: …", st)
	}
	if grew := highWaterMark(t) - hwm; grew > 100<<20 {
		t.Errorf("the window's process grew by %d MB running the query; it belongs to the child", grew>>20)
	}
	db, err := sql.Open("sqlite", "file:"+wts[0].StorePath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0",
		"INSERT INTO sessions(worktree, name) VALUES ('main', 'in the WAL')"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	folder := func() string {
		dir := filepath.Dir(wts[0].StorePath)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %x", e.Name(), sha256.Sum256(data)))
		}
		return strings.Join(out, "\n")
	}
	before := folder()
	sw.RunSQL("SELECT COUNT(*) FROM events")
	pw.wg.Wait()
	if st := sw.console.Status(); strings.Contains(st, "query") || strings.Contains(st, "sql:") {
		t.Errorf("console status %q after a good query", st)
	}
	if after := folder(); after != before {
		t.Errorf("the console changed the store's folder:\n%s\nwas\n%s", after, before)
	}
}

// highWaterMark is this process's peak resident memory (VmHWM) in bytes;
// the test skips where /proc does not say.
func highWaterMark(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}
