package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
)

// TestWritersOfEveryAgent: each of the five agents beyond claude and codex,
// named with --agent, writes a session's compaction summary and the
// chronicle's standup, from a scratch folder, with the prompt Lazuli built.
func TestWritersOfEveryAgent(t *testing.T) {
	const answer = "# Standup — all the history\n\n- Five rounds of questions [S1#1] [S1].\n"
	routes := []fm.Route{
		{Contains: "<transcript>", Script: fm.Script{fm.Text(variedSummary())}},
		{Contains: "report of Lazuli's chronicle", Script: fm.Script{fm.Text(answer)}},
	}
	fallback := fm.Script{fm.Text("not a prompt Lazuli sends here")}
	harnessFor := func(t *testing.T, agent string) *harness {
		switch agent {
		case "gemini", "qwen":
			h, _ := newAgentHarness(t, agent, fallback, routes...)
			return h
		}
		fm.NeedCLI(t, agent)
		return agentHarness(t, fallback, routes...)
	}
	for _, agent := range []string{"gemini", "qwen", "opencode", "pi", "copilot"} {
		t.Run(agent, func(t *testing.T) {
			h := harnessFor(t, agent)
			seed := filepath.Join(t.TempDir(), "seed.jsonl")
			bigTranscript(t, seed, 5, 5_000)
			h.ok("import", "--store", h.store, seed)

			var compacted struct {
				AfterSeq     int64  `json:"after_seq"`
				SummaryChars int    `json:"summary_chars"`
				Agent        string `json:"agent"`
			}
			r := h.ok("compact", "--json", "--store", h.store, "1", "--agent", agent)
			if err := json.Unmarshal([]byte(r.stdout), &compacted); err != nil {
				t.Fatalf("compact JSON: %v\n%s", err, r)
			}
			if compacted.Agent != agent || compacted.AfterSeq == 0 || compacted.SummaryChars != len(strings.TrimSpace(variedSummary())) {
				t.Errorf("compact = %+v, want %s's summary stored", compacted, agent)
			}

			var report struct {
				Agent    string   `json:"agent"`
				Sessions []string `json:"sessions"`
				Markdown string   `json:"markdown"`
			}
			r = h.ok("chronicle", "standup", "--store", h.store, "--since", "all", "--agent", agent, "--json")
			if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
				t.Fatalf("chronicle JSON: %v\n%s", err, r)
			}
			if report.Agent != agent || strings.Join(report.Sessions, ",") != "S1" || !strings.HasPrefix(report.Markdown, "# Standup — all the history") {
				t.Errorf("chronicle = %+v, want %s's report", report, agent)
			}

			var routed []int
			for _, req := range h.srv.Model() {
				routed = append(routed, req.Route)
			}
			if len(routed) < 2 || !slices.Contains(routed, 0) || !slices.Contains(routed, 1) {
				t.Errorf("requests went to routes %v, want the compaction prompt (0) and the chronicle prompt (1)", routed)
			}
			h.check()
		})
	}
}

// variedSummary is a compaction summary of about 2,300 characters that
// repeats no sentence: Gemini CLI's loop detection stops a run whose
// answer repeats a chunk (the summary of TestCompact does) and drops it.
func variedSummary() string {
	files := []string{"notes.txt", "main.go", "store.go", "README.md", "parse.go", "views.go", "cli.go"}
	acts := []string{"created", "read twice", "edited", "renamed", "tested", "reviewed", "formatted"}
	why := []string{"to fix a crash", "for the new flag", "after a failing test", "at the user's request",
		"to match the spec", "before the release", "to speed up imports"}
	var b strings.Builder
	b.WriteString("The user and the assistant went through five rounds of questions. ")
	for i := range 35 {
		fmt.Fprintf(&b, "In step %d the assistant %s %s %s. ", i+1, acts[i%7], files[(i*3)%7], why[(i*5)%7])
	}
	return b.String()
}
