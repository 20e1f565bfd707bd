package agents

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// streamSubagentWork counts, straight from a stream-json file, the tool
// calls and tool results written by sub-agents (lines with
// parent_tool_use_id set), by the parent's call id.
func streamSubagentWork(t *testing.T, path string) (calls, results map[string]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	calls, results = map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l struct {
			Parent  string `json:"parent_tool_use_id"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Parent == "" {
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(l.Message.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				calls[l.Parent]++
			case "tool_result":
				if s := string(b.Content); s != `""` && s != "" && s != "[]" {
					results[l.Parent]++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return calls, results
}

// TestReadTranscriptKeepsEverySubagentCall reads the captures whose
// sub-agents' work used to be dropped: every tool call and result of a
// sub-agent is in that sub-agent's events, none in the parent's.
func TestReadTranscriptKeepsEverySubagentCall(t *testing.T) {
	dir := fixtures.Dir(t)
	for _, rel := range []string{
		"transcripts/A_sandbox_ai_compiler_claude-debug--claude_output.jsonl",
		"transcripts/A_sandbox_ai_compiler_repomirror--claude_output.jsonl",
		"real-cli/claude-g-subagent/stdout.jsonl",
	} {
		t.Run(filepath.Base(filepath.Dir(rel))+"/"+filepath.Base(rel), func(t *testing.T) {
			path := filepath.Join(dir, rel)
			wantCalls, wantResults := streamSubagentWork(t, path)
			if len(wantCalls) == 0 {
				t.Fatal("the fixture has no sub-agent calls")
			}
			tr, err := ReadTranscript(path, parse.FormatAuto, parse.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Subagents) != len(wantCalls) {
				t.Fatalf("%d sub-agents, want %d", len(tr.Subagents), len(wantCalls))
			}
			parentCalls := map[string]bool{}
			for _, e := range tr.Events {
				if e.Kind == codec.KindToolCall {
					parentCalls[e.ToolUseID] = true
				}
			}
			total := 0
			for _, s := range tr.Subagents {
				calls, results := 0, 0
				for _, e := range s.Events {
					switch e.Kind {
					case codec.KindToolCall:
						calls++
						if parentCalls[e.ToolUseID] {
							t.Errorf("sub-agent call %s is also in the parent", e.ToolUseID)
						}
					case codec.KindToolResult:
						results++
					}
				}
				if calls != wantCalls[s.ToolUseID] || results != wantResults[s.ToolUseID] {
					t.Errorf("sub-agent %s: %d calls and %d results, want %d and %d",
						s.ToolUseID, calls, results, wantCalls[s.ToolUseID], wantResults[s.ToolUseID])
				}
				if !parentCalls[s.ToolUseID] {
					t.Errorf("sub-agent %s: the parent has no such call", s.ToolUseID)
				}
				if s.Asked == "" || len(s.Events) == 0 || s.Events[0].Kind != codec.KindUserMessage || s.Events[0].Content != s.Asked {
					t.Errorf("sub-agent %s does not start with what it was asked (%q)", s.ToolUseID, s.Asked)
				}
				total += calls
			}
			t.Logf("%d sub-agent tool calls kept", total)
		})
	}
}

// TestStoreTranscriptCreatesLinkedSubagentSessions imports a capture with
// sub-agents: the parent and one linked session per sub-agent, named
// "<parent> › <what it was asked>", listed below the parent.
func TestStoreTranscriptCreatesLinkedSubagentSessions(t *testing.T) {
	dir := fixtures.Dir(t)
	tr, err := ReadTranscript(filepath.Join(dir, "real-cli/claude-g-subagent/stdout.jsonl"), parse.FormatAuto, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, _ := newStore(t)
	id, n, err := StoreTranscript(ctx, st, tr, 0, "main", "inventory")
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.Sessions().List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != id || !strings.HasPrefix(list[1].Name, "inventory › SUBAGENT-INVENTORY") {
		t.Fatalf("list %+v", list)
	}
	child := list[1].ID
	if got, ok, err := st.Subagents().Session(ctx, id, tr.Subagents[0].ToolUseID); err != nil || !ok || got != child {
		t.Fatalf("Subagents().Session = %d %v %v, want %d", got, ok, err, child)
	}
	if l, ok, err := st.Subagents().Parent(ctx, child); err != nil || !ok || l.ParentID != id {
		t.Fatalf("Subagents().Parent = %+v %v %v", l, ok, err)
	}
	if got := strings.Join(kinds(t, st, child), " "); got != "UserMessage ToolCall ToolResult" {
		t.Fatalf("sub-agent kinds: %s", got)
	}
	if want := len(tr.Events) + len(tr.Subagents[0].Events); n != want {
		t.Fatalf("%d events stored, want %d", n, want)
	}
	// Claude's result line counts the whole run, the sub-agent included
	// (its modelUsage: 400 input, 80 output tokens, $0.0032): that usage is
	// stored once, on the parent.
	usage, err := st.Usage().Rows(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(usage) != 1 || usage[0].SessionID != id || usage[0].Input != 400 || usage[0].Output != 80 || usage[0].CostUSD != 0.0032 {
		t.Fatalf("usage rows %+v, want the result's (400 in, 80 out, $0.0032) on the parent S%d", usage, id)
	}
	checkStore(t, st)
}

// Stream lines of a parent that starts a sub-agent, for the fake agent.
const (
	claudeAgentCall = `{"type":"assistant","message":{"id":"msg_a","content":[{"type":"tool_use","id":"toolu_agent","name":"Agent","input":{"description":"Inventory","prompt":"List the files."}}]},"parent_tool_use_id":null,"uuid":"a1"}`
	claudeSubPrompt = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"List the files."}]},"parent_tool_use_id":"toolu_agent","uuid":"s0"}`
	claudeSubCall   = `{"type":"assistant","message":{"id":"msg_s","content":[{"type":"tool_use","id":"toolu_sub","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":"toolu_agent","uuid":"s1"}`
	claudeSubResult = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_sub","content":"a.go"}]},"parent_tool_use_id":"toolu_agent","uuid":"s2"}`
	claudeAgentDone = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_agent","content":"Found a.go."}]},"uuid":"a2"}`
)

// TestRunTurnStoresSubagentSessionAsItStreams runs an agent whose stream
// carries a sub-agent's work and hangs: while it hangs (where a kill -9
// of Lazuli would leave the store), the sub-agent's call and result are
// already in a session of their own, linked to the parent, and the parent
// holds its own turn without them.
func TestRunTurnStoresSubagentSessionAsItStreams(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeAgentCall, claudeSubPrompt, claudeSubCall, claudeSubResult, claudeAgentDone, "#hang")
	saw := make(chan SubagentSaved, 10)
	parentSaved := make(chan struct{}, 10)
	opts := TurnOptions{Config: cfg, Env: env, Grace: 200 * time.Millisecond, Save: SaveOptions{Buffer: 20 * time.Millisecond},
		OnSubagent: func(s SubagentSaved) { saw <- s },
		OnSaved: func(saved []codec.Event) {
			for _, e := range saved {
				if e.Kind == codec.KindToolResult {
					parentSaved <- struct{}{}
				}
			}
		}}
	done := make(chan error, 1)
	go func() {
		_, err := RunTurn(ctx, st, id, "take stock", opts)
		done <- err
	}()
	<-parentSaved // the Agent call's result: sub-agents are flushed before the parent
	var first SubagentSaved
	select {
	case first = <-saw:
	default:
		cancel()
		<-done
		t.Fatal("the parent's turn was saved before the sub-agent's work")
	}
	if !first.Created || first.SessionID == 0 || first.ToolUseID != "toolu_agent" {
		t.Fatalf("first sub-agent batch %+v", first)
	}
	// The agent still runs: this is what the file holds at this moment.
	child := first.SessionID
	if got := strings.Join(kinds(t, st, child), " "); got != "UserMessage ToolCall ToolResult" {
		t.Fatalf("sub-agent session while running: %s", got)
	}
	if got := strings.Join(kinds(t, st, id), " "); got != "UserMessage Init ToolCall ToolResult" {
		t.Fatalf("parent while running: %s", got)
	}
	s, err := st.Sessions().Get(ctx, child)
	if err != nil || s.Name != "S1 › List the files." {
		t.Fatalf("sub-agent session %+v, %v", s, err)
	}
	if got, ok, _ := st.Subagents().Session(ctx, id, "toolu_agent"); !ok || got != child {
		t.Fatalf("the parent's call does not lead to S%d", child)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(kinds(t, st, child), " "); got != "UserMessage ToolCall ToolResult" {
		t.Fatalf("sub-agent session after the stop: %s", got)
	}
	checkStore(t, st)
}
