package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// seedSession stores n user prompts, each followed by a tool call, its
// result and an answer, and returns the seqs of the user messages.
func seedSession(t *testing.T, st *store.Store, id int64, n int) []int64 {
	t.Helper()
	ctx := context.Background()
	var users []int64
	for i := 1; i <= n; i++ {
		path := fmt.Sprintf("/w/file%d.go", i)
		evs := []codec.Event{
			codec.UserMessage(fmt.Sprintf("request number %d: please change file%d", i, i)),
			codec.ToolCall(fmt.Sprintf("t%d", i), "Edit", &path, json.RawMessage(`{"file_path":"`+path+`","old_string":"a","new_string":"b"}`)),
			codec.ToolResult(fmt.Sprintf("t%d", i), "Edit", &path, "ok", false),
			codec.AssistantText(fmt.Sprintf("I decided to change file%d because it was wrong. %s", i, strings.Repeat("More detail. ", 40))),
			codec.Complete(true, 1000, 0.01),
		}
		if _, err := st.Events().Append(ctx, id, evs); err != nil {
			t.Fatal(err)
		}
		all, _ := st.Events().All(ctx, id)
		users = append(users, all[len(all)-5].Seq)
	}
	return users
}

// claudeTextLines is a Claude stream that answers text.
func claudeTextLines(text string) []string {
	b, _ := json.Marshal(text)
	return []string{claudeInit,
		`{"type":"assistant","message":{"id":"msg_s","content":[{"type":"text","text":` + string(b) + `}]},"uuid":"us"}`,
		claudeOK}
}

func TestCompactSessionBuiltinKeepsLastThreePrompts(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	users := seedSession(t, st, id, 5)
	before, _ := st.Events().All(ctx, id)
	out, err := CompactSession(ctx, st, id, CompactOptions{Agent: CompactBuiltin})
	if err != nil {
		t.Fatal(err)
	}
	if want := users[2] - 1; out.AfterSeq != want || out.Agent != "builtin" {
		t.Fatalf("outcome %+v, want after_seq %d by builtin", out, want)
	}
	c, _ := st.Compactions().Latest(ctx, id)
	if c == nil || c.AfterSeq != out.AfterSeq || len([]rune(c.Summary)) != out.SummaryChars {
		t.Fatalf("stored compaction = %+v", c)
	}
	after, _ := st.Events().All(ctx, id)
	if len(after) != len(before) {
		t.Fatalf("compaction changed the events: %d → %d", len(before), len(after))
	}
	if out.CharsAfter >= out.CharsBefore {
		t.Fatalf("context did not shrink: %d → %d", out.CharsBefore, out.CharsAfter)
	}
	// The next compaction starts after this one and folds its summary in.
	seedSession(t, st, id, 3)
	out2, err := CompactSession(ctx, st, id, CompactOptions{Agent: CompactBuiltin})
	if err != nil || out2.AfterSeq <= out.AfterSeq {
		t.Fatalf("second compaction %+v, %v", out2, err)
	}
}

// TestCompactSessionKeepsFewerPromptsInShortSessions: the boundary keeps the
// last 3 prompts, else 2, else 1 (spec §7.3), so a session of 2 or 3 prompts
// is compacted up to its second prompt.
func TestCompactSessionKeepsFewerPromptsInShortSessions(t *testing.T) {
	for _, tc := range []struct {
		prompts, keep int
	}{
		{2, 1},
		{3, 2},
		{4, 3},
	} {
		t.Run(fmt.Sprintf("%d prompts", tc.prompts), func(t *testing.T) {
			ctx := context.Background()
			st, id := newStore(t)
			users := seedSession(t, st, id, tc.prompts)
			out, err := CompactSession(ctx, st, id, CompactOptions{Agent: CompactBuiltin})
			if err != nil {
				t.Fatalf("CompactSession of %d prompts: %v", tc.prompts, err)
			}
			// The kept prompts are the last tc.keep: the boundary sits just
			// before the first of them.
			if want := users[tc.prompts-tc.keep] - 1; out.AfterSeq != want {
				t.Errorf("after_seq = %d, want %d (keeping the last %d of %d prompts)", out.AfterSeq, want, tc.keep, tc.prompts)
			}
			if c, _ := st.Compactions().Latest(ctx, id); c == nil || c.AfterSeq != out.AfterSeq {
				t.Errorf("stored compaction = %+v, want after_seq %d", c, out.AfterSeq)
			}
		})
	}
}

func TestCompactSessionNeedsTwoPrompts(t *testing.T) {
	st, id := newStore(t)
	seedSession(t, st, id, 1)
	if _, err := CompactSession(context.Background(), st, id, CompactOptions{Agent: CompactBuiltin}); !errors.Is(err, ErrNoBoundary) {
		t.Fatalf("err = %v", err)
	}
	if c, _ := st.Compactions().Latest(context.Background(), id); c != nil {
		t.Fatal("a compaction was stored without a boundary")
	}
}

func TestCompactSessionWithAgentRunsSandboxedOutsideTheWorktree(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	users := seedSession(t, st, id, 4)
	summary := strings.Repeat("The user asked for changes to file1 and file2; they were made. ", 40)
	cfg, env, rec := fakeCLI(t, claudeTextLines(summary)...)
	out, err := CompactSession(ctx, st, id, CompactOptions{Config: cfg, Env: env, Agent: CompactClaude})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := st.Compactions().Latest(ctx, id)
	if out.Agent != "claude" || c.Summary != strings.TrimSpace(summary) || c.AfterSeq != users[1]-1 {
		t.Fatalf("outcome %+v, stored %+v", out, c)
	}
	r := readRecord(t, rec)
	args := strings.Join(r.Args, " ")
	if strings.Contains(args, "--dangerously-skip-permissions") || !strings.Contains(args, "<transcript>") {
		t.Fatalf("compaction argv = %q", args)
	}
	if !strings.Contains(r.Dir, "lazuli-compact-") {
		t.Fatalf("compaction agent ran in %s, want a scratch folder", r.Dir)
	}
}

func TestCompactSessionFallsBackWhenSummariesAreBad(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	seedSession(t, st, id, 4)
	cfg, env, _ := fakeCLI(t, claudeTextLines("too short")...)
	var tried []string
	out, err := CompactSession(ctx, st, id, CompactOptions{Config: cfg, Env: env, Backend: Claude,
		OnAttempt: func(a string) { tried = append(tried, a) }})
	if err != nil {
		t.Fatal(err)
	}
	// claude twice (too short), codex once (the fake's Claude lines hold no
	// Codex text), then the built-in summarizer.
	if strings.Join(tried, ",") != "claude,claude,codex,builtin" || out.Agent != "builtin" || len(out.Attempts) != 3 {
		t.Fatalf("tried %v, outcome %+v", tried, out)
	}
	if !strings.Contains(out.Attempts[0], "too short") {
		t.Fatalf("attempts = %q", out.Attempts)
	}
}

func TestCompactSessionExplicitAgentFailureStoresNothing(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	seedSession(t, st, id, 4)
	cfg := Config{Paths: map[Backend]string{Claude: "/nonexistent/claude"}, Getenv: func(string) string { return "" }}
	_, err := CompactSession(ctx, st, id, CompactOptions{Config: cfg, Agent: CompactClaude})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("err = %v", err)
	}
	if c, _ := st.Compactions().Latest(ctx, id); c != nil {
		t.Fatal("a failed compaction stored a row")
	}
	// Auto mode goes on to the built-in summarizer when no CLI exists.
	cfg.Paths[Codex] = "/nonexistent/codex"
	out, err := CompactSession(ctx, st, id, CompactOptions{Config: cfg})
	if err != nil || out.Agent != "builtin" {
		t.Fatalf("auto with no CLI: %+v, %v", out, err)
	}
}

func TestCompactorRunsEachSessionOnce(t *testing.T) {
	st, id := newStore(t)
	seedSession(t, st, id, 4)
	notices := make(chan CompactNotice, 16)
	c := NewCompactor(func(string) (*store.Store, error) { return st, nil },
		func(CompactJob) CompactOptions { return CompactOptions{Agent: CompactBuiltin} },
		func(n CompactNotice) { notices <- n })
	job := CompactJob{StorePath: st.Path(), SessionID: id, Reason: "test"}
	if !c.Request(job, 1) {
		t.Fatal("first request refused")
	}
	if c.Request(job, 1) {
		t.Fatal("a second request for a queued session was accepted")
	}
	if !c.Busy(st.Path(), id) {
		t.Fatal("a queued session is not busy")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	var final CompactNotice
	for final = range notices {
		if !final.Started {
			break
		}
	}
	if final.Err != nil || final.Outcome.Agent != "builtin" {
		t.Fatalf("notice = %+v", final)
	}
	// A session that cannot be compacted is not retried at the same size.
	st2, id2 := newStore(t)
	seedSession(t, st2, id2, 1)
	c.open = func(string) (*store.Store, error) { return st2, nil }
	job2 := CompactJob{StorePath: st2.Path(), SessionID: id2}
	chars, _ := st2.Compactions().CharsSince(context.Background(), id2)
	if !c.Request(job2, chars) {
		t.Fatal("request refused")
	}
	for final = range notices {
		if !final.Started {
			break
		}
	}
	if !errors.Is(final.Err, ErrNoBoundary) {
		t.Fatalf("notice = %+v", final)
	}
	// The notice comes just before the job is marked done: wait for that
	// (the deadline only turns a hang into a failure; a busy machine never
	// comes near it).
	deadline := time.Now().Add(2 * time.Minute)
	for c.Busy(st2.Path(), id2) {
		if time.Now().After(deadline) {
			t.Fatal("the failed job is still busy after 2 minutes")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if c.Request(job2, chars) {
		t.Fatal("an automatic retry at the same size was accepted")
	}
	job2.Manual = true
	if !c.Request(job2, chars) {
		t.Fatal("a manual retry was refused")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
}

// TestParseCompactAgent: any backend Lazuli runs may write a summary.
func TestParseCompactAgent(t *testing.T) {
	for in, want := range map[string]CompactAgent{"": CompactAuto, "Auto": CompactAuto, "builtin": CompactBuiltin, "gemini": "gemini", " pi ": "pi", "copilot": "copilot"} {
		if got, err := ParseCompactAgent(in); err != nil || got != want {
			t.Errorf("ParseCompactAgent(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseCompactAgent("gemni"); err == nil || !strings.Contains(err.Error(), "want auto, builtin, claude, codex, gemini, qwen, opencode, pi or copilot") {
		t.Errorf("ParseCompactAgent(gemni) = %v", err)
	}
}

// TestCompactSessionNamedAgentHasNoFallback: a backend named runs (once
// when its CLI is missing) and its failure stores nothing, as for claude.
func TestCompactSessionNamedAgentHasNoFallback(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	seedSession(t, st, id, 4)
	cfg := Config{Paths: map[Backend]string{Gemini: "/nonexistent/gemini"}, Getenv: func(string) string { return "" }}
	var tried []string
	_, err := CompactSession(ctx, st, id, CompactOptions{Config: cfg, Agent: "gemini", OnAttempt: func(a string) { tried = append(tried, a) }})
	if err == nil || !strings.Contains(err.Error(), "compaction with gemini failed") || strings.Join(tried, ",") != "gemini" {
		t.Fatalf("err = %v, tried %v", err, tried)
	}
	if c, _ := st.Compactions().Latest(ctx, id); c != nil {
		t.Fatal("a failed compaction stored a row")
	}
}
