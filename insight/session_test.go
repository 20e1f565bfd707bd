package insight

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestCommitURL: a commit opens on GitHub and GitLab remotes; elsewhere it
// has no address (the chip copies the hash).
func TestCommitURL(t *testing.T) {
	for _, c := range []struct{ remote, want string }{
		{"git@github.com:acme/app.git", "https://github.com/acme/app/commit/abc1234"},
		{"https://gitlab.com/grp/sub/proj.git", "https://gitlab.com/grp/sub/proj/-/commit/abc1234"},
		{"git@gitlab.example.org:team/x.git", "https://gitlab.example.org/team/x/-/commit/abc1234"},
		{"git@bitbucket.org:team/x.git", ""},
		{"", ""},
	} {
		if got := commitURL(parseRemote(c.remote), "abc1234"); got != c.want {
			t.Errorf("commitURL(%q) = %q, want %q", c.remote, got, c.want)
		}
	}
	refs := refsIn("[main abc1234] fix", true, false, func() remote { return parseRemote("git@github.com:acme/app.git") })
	if want := []Ref{{RefCommit, "abc1234", "https://github.com/acme/app/commit/abc1234"}}; !reflect.DeepEqual(refs, want) {
		t.Errorf("refs = %+v, want %+v", refs, want)
	}
}

// TestURLRefs: a URL is cut where prose or markdown around it begins, and
// what a URL can hold is kept.
func TestURLRefs(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"open http://localhost:5173.", "http://localhost:5173"},
		{"the **http://localhost:5173** server", "http://localhost:5173"},
		{"~~https://old.example.com/x~~", "https://old.example.com/x"},
		{"see “https://www.danieldemmel.me/tokenizer.css” here", "https://www.danieldemmel.me/tokenizer.css"},
		{"‘https://a.dev/b’", "https://a.dev/b"},
		{"«https://a.dev/b»", "https://a.dev/b"},
		{"[docs](https://go.dev/doc/effective_go#names)", "https://go.dev/doc/effective_go#names"},
		{"https://x.dev/search?q=a+b&page=2, then", "https://x.dev/search?q=a+b&page=2"},
		{"https://x.dev/a_b_", "https://x.dev/a_b_"},
	} {
		refs := urlRefs(c.text)
		if len(refs) != 1 || refs[0].Kind != RefURL || refs[0].Value != c.want || refs[0].URL != c.want {
			t.Errorf("urlRefs(%q) = %+v, want the URL %q", c.text, refs, c.want)
		}
	}
}

// TestTurnUsagesAndRecentEdits: each turn's usage with the seqs it spans;
// the files changed, newest first, reads left out.
func TestTurnUsagesAndRecentEdits(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 2, 3)
	x := mustIndex(t, st)
	tu, err := x.Usage().ByTurn(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tu) != 3 {
		t.Fatalf("turn usages = %+v", tu)
	}
	for i, u := range tu {
		if u.Turn != int64(i+1) || u.FirstSeq != int64(9*i+1) || u.LastSeq != int64(9*i+9) || u.Input != int64(100+i) ||
			u.Output != 10 || u.CacheRead != 5 || !u.CostEstimated || u.CostUSD <= 0 {
			t.Errorf("turn %d = %+v", i, u)
		}
	}
	edits, err := x.Files().RecentEdits(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	// session 2's turns 3..5 edit f0, f1, f2 (turn i edits f<i%3>); session 1's f0..f2.
	var got []string
	for _, e := range edits {
		if e.Action != ActionEdit {
			t.Errorf("edit row with action %q", e.Action)
		}
		got = append(got, fmt.Sprintf("S%d %s", e.SessionID, e.Path))
	}
	if want := []string{"S2 /w/src/f2.go", "S2 /w/src/f1.go", "S2 /w/src/f0.go", "S1 /w/src/f2.go", "S1 /w/src/f1.go", "S1 /w/src/f0.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("recent edits = %q, want %q", got, want)
	}
	if e := edits[0]; e.SessionID != 2 || e.LastSeq != 9*2+4 || e.At == "" {
		t.Errorf("newest edit = %+v", e)
	}
	if edits, _ := x.Files().RecentEdits(ctx, 2); len(edits) != 2 {
		t.Errorf("limit 2: %d rows", len(edits))
	}
}

// TestRecentEditsLeaveOutForkCopies: a fork's copies of its parent's
// edits are not new edits (in Recent edits and in lazuli files --recent);
// an edit the fork makes after them is.
func TestRecentEditsLeaveOutForkCopies(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 1, 3) // session 1: turns at seqs 1, 10 and 19 edit f0, f1, f2
	fork, err := st.Forks().Create(ctx, 1, 19, "")
	if err != nil {
		t.Fatal(err)
	}
	x := mustIndex(t, st)
	sessionsOf := func() []string {
		t.Helper()
		edits, err := x.Files().RecentEdits(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range edits {
			got = append(got, fmt.Sprintf("S%d %s", e.SessionID, e.Path))
		}
		changes, err := x.Files().NewestChanges(ctx, 0, 100) // lazuli files --recent
		if err != nil {
			t.Fatal(err)
		}
		var cli []string
		for _, f := range changes {
			cli = append(cli, f.Session+" "+f.Path)
		}
		if !reflect.DeepEqual(cli, got) {
			t.Errorf("NewestChanges = %q, want as RecentEdits %q", cli, got)
		}
		return got
	}
	if got, want := sessionsOf(), []string{"S1 /w/src/f2.go", "S1 /w/src/f1.go", "S1 /w/src/f0.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("recent edits with a fork's copies = %q, want %q", got, want)
	}
	evs, _ := turnEvents(5) // edits f2
	if _, err := st.Events().Append(ctx, fork.ID, evs); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Update(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := sessionsOf(), []string{fmt.Sprintf("S%d /w/src/f2.go", fork.ID), "S1 /w/src/f2.go", "S1 /w/src/f1.go", "S1 /w/src/f0.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("recent edits after the fork's own edit = %q, want %q", got, want)
	}
}

// TestFileChanges: every change of one file, in order, relative paths
// against the session's folder; other files and reads left out.
func TestFileChanges(t *testing.T) {
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	edit := func(seq int64, path, old, new string) store.StoredEvent {
		return store.StoredEvent{Seq: seq, Event: codec.ToolCall("e", "Edit", ptr(path),
			raw(map[string]string{"file_path": path, "old_string": old, "new_string": new}))}
	}
	events := []store.StoredEvent{
		{Seq: 1, Event: codec.Init("/w", "m")},
		edit(2, "/w/a.go", "x", "y"),
		{Seq: 3, Event: codec.ToolCall("r", "Read", ptr("/w/a.go"), raw(map[string]string{"file_path": "/w/a.go"}))},
		edit(4, "/w/b.go", "p", "q"),
		{Seq: 5, Event: codec.ToolCall("s", "shell", nil, raw(map[string]any{"command": []string{"bash", "-lc",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.go\n@@\n-y\n+z\n*** End Patch\nEOF"}}))},
	}
	got := FileChanges(events, "/w/.azureal/sessions.azs", "a.go")
	if len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 5 || got[0].Tool != "Edit" {
		t.Fatalf("changes = %+v", got)
	}
	if len(got[1].Files) != 1 || got[1].Files[0].Path != "a.go" {
		t.Errorf("patch change = %+v", got[1].Files)
	}
}

// TestSummaryEqualsStats: the Insights window's one-pass sums add up to
// what Stats says by model and in total.
func TestSummaryEqualsStats(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 3, 4)
	x := mustIndex(t, st)
	usage, sessions, err := x.Usage().Summary(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var in, n, turns int64
	var cost float64
	for _, u := range usage {
		in += u.Input
		cost += u.CostUSD
	}
	for _, s := range sessions {
		n += s.Sessions
		turns += s.Turns
	}
	tot, err := x.Usage().Stats(ctx, StatsQuery{})
	if err != nil || len(tot) != 1 {
		t.Fatal(tot, err)
	}
	if w := tot[0]; in != w.Input || n != w.Sessions || turns != w.Turns || fmt.Sprintf("%.9f", cost) != fmt.Sprintf("%.9f", w.CostUSD) {
		t.Errorf("summary input %d sessions %d turns %d cost %v; stats %+v", in, n, turns, cost, w)
	}
	if len(sessions) == 0 || len(usage) == 0 {
		t.Errorf("usage %v sessions %v", usage, sessions)
	}
}

// TestTopFiles: the most touched paths, summed over sessions, the same
// with and without a day; one session's alone.
func TestTopFiles(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 2, 3)
	x := mustIndex(t, st)
	want := []PathCount{{"/w/src/f0.go", 4}, {"/w/src/f1.go", 4}}
	for _, since := range []string{"", "2000-01-01"} {
		if got, err := x.Files().Top(ctx, since, 0, 2); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("since %q: %v, %v; want %v", since, got, err, want)
		}
	}
	if got, err := x.Files().Top(ctx, "", 1, 5); err != nil || len(got) != 3 || got[0].Count != 2 {
		t.Errorf("session 1: %v, %v", got, err)
	}
	if got, _ := x.Files().Top(ctx, "2999-01-01", 0, 5); len(got) != 0 {
		t.Errorf("since the future: %v", got)
	}
}
