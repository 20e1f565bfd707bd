package chronicle

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/internal/testcache"
	"github.com/lazuli-app/lazuli/store"
)

// TestMain keeps the insight indexes out of the user's cache folder.
func TestMain(m *testing.M) { os.Exit(testcache.Run(m)) }

func ptr(s string) *string { return &s }

func input(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func bash(id, cmd string) codec.Event {
	return codec.ToolCall(id, "Bash", nil, input(map[string]string{"command": cmd}))
}

func edit(id, path string) codec.Event {
	return codec.ToolCall(id, "Edit", ptr(path), input(map[string]string{"file_path": path, "old_string": "a", "new_string": "b"}))
}

// usage is one turn's usage row for the event at index ev.
func usage(ev int, model, backend string, cost float64) store.Usage {
	return store.Usage{Event: ev, At: "2026-11-25 10:00:00", Source: "claude-stream", Model: model, Backend: backend,
		Tokens: store.Tokens{Input: 1000, Output: 100, CostUSD: cost}, HasCost: true}
}

// The crafted store's sessions. Seqs are the events' positions, from 1.
var (
	// S1 "login": a failing command run twice unchanged, a file edited five
	// times, a correction, and a last turn that failed.
	login = []codec.Event{
		codec.Init("/w", "claude-sonnet-4-5"),                    // 1
		codec.UserMessage("fix the login bug in auth.go"),        // 2
		bash("b1", "go test ./..."),                              // 3
		codec.ToolResult("b1", "Bash", nil, "FAIL auth", true),   // 4
		bash("b2", "go test ./..."),                              // 5
		codec.ToolResult("b2", "Bash", nil, "FAIL auth", true),   // 6
		edit("e1", "/w/auth.go"),                                 // 7
		edit("e2", "/w/auth.go"),                                 // 8
		edit("e3", "/w/auth.go"),                                 // 9
		edit("e4", "/w/auth.go"),                                 // 10
		edit("e5", "/w/auth.go"),                                 // 11
		codec.AssistantText("Fixed, see PR #12."),                // 12
		codec.Complete(true, 5000, 0.5),                          // 13
		codec.UserMessage("no, that's wrong: keep the old API"),  // 14
		codec.AssistantText("Restored the old API."),             // 15
		codec.Complete(true, 3000, 0.2),                          // 16
		codec.UserMessage("run the full test suite please"),      // 17
		bash("b3", "make test"),                                  // 18
		codec.ToolResult("b3", "Bash", nil, "make: error", true), // 19
		codec.Complete(false, 2000, 0.1),                         // 20
	}
	// S2 "tests": the repeated prompt, a long wait for a one-line answer,
	// an interrupted turn and a second correction.
	tests = []codec.Event{
		codec.UserMessage("run the full test suite please"), // 1
		bash("t1", "make test"),                             // 2
		codec.ToolResult("t1", "Bash", nil, "ok", false),    // 3
		codec.AssistantText("All tests pass."),              // 4
		codec.Complete(true, 125000, 0.3),                   // 5
		codec.UserMessage("add a changelog entry"),          // 6
		codec.AssistantText("Looking at CHANGELOG.md"),      // 7
		codec.UserMessage("[Request interrupted by user]"),  // 8
		codec.UserMessage("stop, revert that"),              // 9
		codec.AssistantText("Reverted."),                    // 10
		codec.Complete(true, 1000, 0.1),                     // 11
	}
	// S3 "refactor": a long session compacted three times, run with Codex.
	refactor = []codec.Event{
		codec.UserMessage("refactor the storage layer"),                            // 1
		codec.Unit(codec.KindCompacted),                                            // 2
		codec.AssistantText("step 1"),                                              // 3
		codec.Unit(codec.KindCompacted),                                            // 4
		codec.AssistantText("step 2"),                                              // 5
		codec.Unit(codec.KindCompacted),                                            // 6
		codec.AssistantText("Done: the storage layer is refactored.\nTests pass."), // 7
		codec.Complete(true, 9000, 0),                                              // 8
	}
)

// craftedStore writes the crafted sessions, and five small ones that make
// S3 a cost outlier, and returns it open with its index up to date.
func craftedStore(t *testing.T) []Source {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	add := func(wt, name string, evs []codec.Event, u ...store.Usage) {
		t.Helper()
		s, err := st.Sessions().Create(ctx, wt, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Events().Append(ctx, s.ID, evs, u...); err != nil {
			t.Fatal(err)
		}
	}
	add("main", "login", login, usage(12, "claude-sonnet-4-5", "claude", 0.5), usage(15, "claude-sonnet-4-5", "claude", 0.2),
		usage(19, "claude-sonnet-4-5", "claude", 0.1))
	add("main", "tests", tests, usage(3, "claude-haiku-4-5", "claude", 0.3), usage(9, "claude-haiku-4-5", "claude", 0.1))
	add("feature", "refactor", refactor, usage(6, "gpt-5-codex", "codex", 5))
	for i := range 5 {
		add("feature", fmt.Sprintf("small %d", i), []codec.Event{codec.UserMessage(fmt.Sprintf("small task %d", i)),
			codec.AssistantText("ok"), codec.Complete(true, 100, 0.1)}, usage(1, "claude-haiku-4-5", "claude", 0.1))
	}
	x, err := insight.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if _, err := x.Update(ctx); err != nil {
		t.Fatal(err)
	}
	return []Source{{Store: st, Index: x}}
}

func all() Options { return Options{Window: Window{Label: "all"}} }

// findings returns the findings of kind as "text cites".
func findings(f *Facts, kind string) []string {
	var out []string
	for _, fd := range f.Findings {
		if fd.Kind == kind {
			out = append(out, fd.Text+" "+cites(fd.Cites))
		}
	}
	return out
}

func gather(t *testing.T, src []Source, r Report, opts Options) *Facts {
	t.Helper()
	f, err := Gather(context.Background(), src, r, opts)
	if err != nil {
		t.Fatalf("Gather(%s): %v", r, err)
	}
	return f
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d\n%q\nwant %d\n%q", what, len(got), got, len(want), want)
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s[%d] = %q, want %q", what, i, got[i], want[i])
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 30, 0, 0, time.UTC)
	for _, c := range []struct{ in, from string }{
		{"24h", "2026-11-24 12:30:00"},
		{"7d", "2026-11-18 12:30:00"},
		{"2026-11-01", "2026-11-01 00:00:00"},
		{"all", ""},
	} {
		w, err := ParseSince(c.in, now)
		if err != nil || w.From != c.from {
			t.Errorf("ParseSince(%q) = %q, %v; want %q", c.in, w.From, err, c.from)
		}
	}
	for _, bad := range []string{"", "0h", "yesterday", "7w", "2026-13-01", "-1d"} {
		if _, err := ParseSince(bad, now); err == nil {
			t.Errorf("ParseSince(%q): no error", bad)
		}
	}
}

func TestNormPrompt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Run the  tests\n please!", "run the tests please"},
		{"  Fix it.  ", "fix it"},
		{"Ünïcode\tPROMPT?", "ünïcode prompt"},
		{"", ""},
	} {
		if got := normPrompt(c.in); got != c.want {
			t.Errorf("normPrompt(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWindowDescribe(t *testing.T) {
	for _, c := range []struct {
		w    Window
		want string
	}{
		{Window{Label: "all"}, "all the history"},
		{Window{From: "2026-11-24 12:30:00", Label: "24h"}, "since 2026-11-24 12:30 UTC (24h)"},
		{Window{From: "2026-11-01 00:00:00", Label: "2026-11-01"}, "since 2026-11-01"},
		{Window{From: "2026"}, "since 2026"},
	} {
		if got := c.w.describe(); got != c.want {
			t.Errorf("%+v.describe() = %q, want %q", c.w, got, c.want)
		}
	}
}
