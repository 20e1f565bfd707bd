package qwen

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// TestStreamSubagent: Qwen streams an agent tool's conversation in lines
// with its parent_tool_use_id; the stream parser hands it out as the
// sub-agent's work, under the call, with Qwen's tools mapped. The capture
// is the real CLI's (testdata/subagent, made by
// `go run ./internal/agentcapture -agent qwen -only subagent -out agents/qwen/testdata/subagent`).
func TestStreamSubagent(t *testing.T) {
	p := NewStreamParser("")
	var subs []parse.SubagentEvents
	var main []codec.Event
	take := func() { // handed out as they come: gathered by call, as the importers do
		for _, s := range p.TakeSubagents() {
			if n := len(subs); n > 0 && subs[n-1].ToolUseID == s.ToolUseID {
				subs[n-1].Events = append(subs[n-1].Events, s.Events...)
			} else {
				subs = append(subs, s)
			}
		}
	}
	if err := feedFile(filepath.Join("testdata", "subagent", "subagent.stdout.jsonl"), func(line []byte) {
		main = append(main, p.Feed(line)...)
		take()
	}); err != nil {
		t.Fatal(err)
	}
	main = append(main, p.Finish()...)
	take()
	if len(subs) != 1 {
		t.Fatalf("sub-agents %+v", subs)
	}
	const task = "Count the lines of notes.txt and report the number."
	s := subs[0]
	if s.ToolUseID != "call_fkm_0_0" || s.Asked != task {
		t.Errorf("sub-agent call %q asked %q", s.ToolUseID, s.Asked)
	}
	want := []codec.Event{
		{Kind: codec.KindUserMessage, Content: task},
		{Kind: codec.KindToolCall, ToolUseID: "call_fkm_0_0", ToolName: "Bash"},
		{Kind: codec.KindToolResult, ToolUseID: "call_fkm_0_0", ToolName: "Bash", Content: "3"},
	}
	if len(s.Events) != len(want) {
		t.Fatalf("sub-agent events %+v", s.Events)
	}
	for i, w := range want {
		g := s.Events[i]
		if g.Kind != w.Kind || g.Content != w.Content || g.ToolUseID != w.ToolUseID || g.ToolName != w.ToolName {
			t.Errorf("sub-agent event %d = %+v, want %+v", i, g, w)
		}
	}
	calls := 0
	for _, e := range main {
		if e.Kind == codec.KindToolCall {
			calls++
			if e.ToolName != "Task" || e.ToolUseID != "call_fkm_0_0" {
				t.Errorf("main call %+v, want the Task call only", e)
			}
		}
	}
	if calls != 1 {
		t.Errorf("%d calls in the main thread, want the Task call", calls)
	}
}

// feedFile calls fn with each line of the file at path.
func feedFile(path string, fn func(line []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return parse.EachLine(bufio.NewReader(f), func(line []byte, tooLong bool) {
		if !tooLong {
			fn(line)
		}
	})
}
