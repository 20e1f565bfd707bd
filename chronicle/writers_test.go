package chronicle

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/insight"
)

// backends are the agent CLIs Lazuli runs, as agents.BackendNames gives
// them (chronicle does not import agents).
var backends = []string{"claude", "codex", "gemini", "qwen", "opencode", "pi", "copilot"}

// TestParseAgent: any backend Lazuli runs may write a report; anything
// else is refused with the list of writers.
func TestParseAgent(t *testing.T) {
	for in, want := range map[string]Agent{"": AgentAuto, "auto": AgentAuto, "builtin": AgentBuiltin, " Gemini ": "gemini", "pi": "pi", "copilot": "copilot"} {
		if got, err := ParseAgent(in, backends); err != nil || got != want {
			t.Errorf("ParseAgent(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseAgent("gemni", backends)
	if err == nil || !strings.Contains(err.Error(), "want auto, builtin, claude, codex, gemini, qwen, opencode, pi or copilot") {
		t.Errorf("ParseAgent(gemni) = %v", err)
	}
	if _, err := ParseAgent("gemini", []string{"claude", "codex"}); err == nil {
		t.Error("a backend Lazuli does not run was accepted")
	}
}

// TestBackendsByUse: the auto writer asks first the CLI most of the
// window's sessions ran with, then the others by use, then Claude Code and
// Codex; a session without usage counts for none.
func TestBackendsByUse(t *testing.T) {
	ran := func(b string) *session {
		s := &session{}
		if b != "" {
			s.Models = []insight.ModelUse{{Model: "m", Backend: b}}
		}
		return s
	}
	got := backendsByUse([]*session{ran("pi"), ran("gemini"), ran("pi"), ran(""), ran("qwen"), ran("gemini"), ran("pi")})
	if want := []string{"pi", "gemini", "qwen"}; !slices.Equal(got, want) {
		t.Errorf("backendsByUse = %v, want %v", got, want)
	}
	if got := preferred(&Facts{byUse: []string{"pi", "codex"}}); !slices.Equal(got, []string{"pi", "codex", "claude"}) {
		t.Errorf("preferred = %v", got)
	}
	if got := preferred(&Facts{}); !slices.Equal(got, []string{"claude", "codex"}) {
		t.Errorf("preferred with no usage = %v", got)
	}
}

// TestAutoWriterOfAnotherAgent: auto writes with the installed CLI the
// window's sessions used most, runs at most two CLIs before the built-in
// writer, and a named backend writes even when the sessions used another.
func TestAutoWriterOfAnotherAgent(t *testing.T) {
	src := craftedStore(t)
	ctx := context.Background()
	f := gather(t, src, Standup, all())
	f.byUse = []string{"gemini", "pi", "qwen"}

	r := &fakeRunner{installed: map[string]bool{"pi": true, "claude": true}, answer: "# Standup\n\n- Done [S1].\n"}
	if res, err := Write(ctx, src, f, AgentAuto, r); err != nil || res.Agent != "pi" {
		t.Errorf("auto: agent %q, %v; want pi, the most used installed CLI", res.Agent, err)
	}

	failing := &fakeRunner{installed: map[string]bool{"gemini": true, "pi": true, "qwen": true, "claude": true}, err: errors.New("exit 1")}
	res, err := Write(ctx, src, f, AgentAuto, failing)
	if err != nil || res.Agent != "builtin" {
		t.Fatalf("auto with failing CLIs: agent %q, %v", res.Agent, err)
	}
	var ran []string
	for b := range failing.prompts {
		ran = append(ran, b)
	}
	slices.Sort(ran)
	if !slices.Equal(ran, []string{"gemini", "pi"}) || !strings.Contains(res.Fallback, "gemini: exit 1") || !strings.Contains(res.Fallback, "pi: exit 1") {
		t.Errorf("auto ran %v (fallback %q); want gemini and pi only", ran, res.Fallback)
	}

	named := &fakeRunner{installed: map[string]bool{"copilot": true, "gemini": true}, answer: "# Standup\n\n- Done [S1].\n"}
	if res, err := Write(ctx, src, f, "copilot", named); err != nil || res.Agent != "copilot" || len(named.prompts) != 1 {
		t.Errorf("--agent copilot: agent %q, %v, ran %v", res.Agent, err, named.prompts)
	}
	if strings.Contains(named.prompts["copilot"], "(Claude Code and Codex)") {
		t.Error("the prompt still speaks of Claude Code and Codex only")
	}
}

// TestInstructionFiles: the improve report proposes lines for the file
// each cited session's agent reads; a session of no known backend reads
// Claude Code's.
func TestInstructionFiles(t *testing.T) {
	ran := func(b string) *session {
		s := &session{}
		if b != "" {
			s.Models = []insight.ModelUse{{Model: "m", Backend: b}}
		}
		return s
	}
	h := &history{byKey: map[sessionKey]*session{{0, 1}: ran("gemini"), {0, 2}: ran("pi"), {0, 3}: ran(""), {0, 4}: ran("qwen"), {0, 5}: ran("copilot")}}
	for _, c := range []struct {
		cites []Cite
		want  []string
	}{
		{[]Cite{{Session: 1}, {Session: 2}, {Session: 3}}, []string{"AGENTS.md", "CLAUDE.md", "GEMINI.md"}},
		{[]Cite{{Session: 4}, {Session: 4}}, []string{"QWEN.md"}},
		{[]Cite{{Session: 5}, {Session: 2}}, []string{"AGENTS.md"}},
		{[]Cite{{Session: 9}}, []string{"CLAUDE.md"}},
	} {
		if got := h.filesFor(c.cites); !slices.Equal(got, c.want) {
			t.Errorf("filesFor(%v) = %v, want %v", c.cites, got, c.want)
		}
	}
}
