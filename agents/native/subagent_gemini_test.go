package native

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// The captured Gemini CLI run whose invoke_agent call started a
// sub-agent (agents/gemini/testdata/subagent, made by
// `go run ./internal/agentcapture -agent gemini -only subagent -out agents/gemini/testdata/subagent`).
const (
	geminiMain     = "e2cb0b0b-9c8b-470d-b1f3-4a514e19598f"
	geminiAgent    = "0abdfe53-7da0-40dd-8d6f-8e811266aebf"
	geminiTaskCall = "invoke_agent__call_fkm_0_0"
	geminiProject  = "/tmp/lazuli-capture-gemini/proj"
)

// copyGeminiSubagent copies the captured ~/.gemini of the sub-agent run
// and returns its history folder (tmp).
func copyGeminiSubagent(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), ".gemini")
	copyTreeForTest(t, filepath.Join("..", "gemini", "testdata", "subagent", "subagent.home", ".gemini"), dst)
	return filepath.Join(dst, "tmp")
}

// TestImportGeminiSubagent: the conversation Gemini CLI keeps of an
// invoke_agent sub-agent (chats/<parent>/<agent>.jsonl) is imported as a
// sub-agent of its parent, linked to the call, with its events as the
// file has them; a second import is a no-op.
func TestImportGeminiSubagent(t *testing.T) {
	ctx := context.Background()
	hist := copyGeminiSubagent(t)
	opts := Options{Dirs: Dirs{Gemini: hist}, Project: geminiProject}
	scan := mustScan(t, opts)
	if len(scan.Sessions) != 1 || len(scan.Sessions[0].Subagents) != 1 {
		t.Fatalf("scan %+v", scan.Sessions)
	}
	if n, s := scan.Sessions[0], scan.Sessions[0].Subagents[0]; n.ID != geminiMain || s.ID != geminiAgent || s.ParentID != geminiMain ||
		s.Cwd != geminiProject || s.FirstPrompt != "Count the lines of notes.txt and report the number." {
		t.Errorf("scan: main %s, sub-agent %+v", n.ID, s)
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(res); got[Imported] != 2 {
		t.Fatalf("outcomes %v", got)
	}
	mustCheck(t, st)
	parentID, childID := resultSession(res, geminiMain), resultSession(res, geminiAgent)
	checkLinked(t, st, parentID, childID, geminiTaskCall)
	child, err := st.Events().All(ctx, childID)
	if err != nil {
		t.Fatal(err)
	}
	want := []codec.Event{
		{Kind: codec.KindInit, CWD: geminiProject, Model: "gemini-2.5-pro"},
		{Kind: codec.KindUserMessage, Content: "Count the lines of notes.txt and report the number."},
		{Kind: codec.KindAssistantText, Text: "Counting."},
		{Kind: codec.KindToolCall, ToolUseID: "run_shell_command__call_fkm_0_0", ToolName: "Bash"},
		{Kind: codec.KindToolResult, ToolUseID: "run_shell_command__call_fkm_0_0", ToolName: "Bash", Content: "<untrusted_context>\nOutput: 3\nProcess Group PGID: 7608\n</untrusted_context>"},
		{Kind: codec.KindAssistantText, Text: "Done."},
		{Kind: codec.KindToolCall, ToolUseID: "complete_task__call_fkm_1_0", ToolName: "complete_task"},
		{Kind: codec.KindToolResult, ToolUseID: "complete_task__call_fkm_1_0", ToolName: "complete_task", Content: "Output submitted and task completed."},
		{Kind: codec.KindComplete, Success: true},
	}
	if len(child) != len(want) {
		t.Fatalf("sub-agent events %+v, want %d", child, len(want))
	}
	for i, w := range want {
		g := child[i].Event
		if g.Kind != w.Kind || g.CWD != w.CWD || g.Model != w.Model || g.Content != codec.CompactEvent(w).Content || g.Text != w.Text ||
			g.ToolUseID != w.ToolUseID || g.ToolName != w.ToolName || g.Success != w.Success || g.IsError {
			t.Errorf("sub-agent event %d = %+v, want %+v", i, g, w)
		}
	}
	if !strings.Contains(string(child[3].Event.Input), "wc -l < notes.txt") {
		t.Errorf("the sub-agent's shell call %s", child[3].Event.Input)
	}
	again := mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(again); got[Unchanged] != 2 {
		t.Errorf("re-import outcomes %v, want both unchanged", got)
	}
}

// TestGeminiSubagentOnReimport: a store that imported the Gemini session
// before Lazuli read its sub-agents' files gets the sub-agent, linked, on
// the next import; the parent is not stored again.
func TestGeminiSubagentOnReimport(t *testing.T) {
	ctx := context.Background()
	hist := copyGeminiSubagent(t)
	opts := Options{Dirs: Dirs{Gemini: hist}, Project: geminiProject}
	mains := mustScan(t, opts).Sessions
	for i := range mains {
		mains[i].Subagents = nil // as the scan before found it
	}
	st := mustOpenStore(t)
	first := mustImport(t, st, mains, ImportOptions{FallbackWorktree: "main"})
	parentID := resultSession(first, geminiMain)
	before, _ := st.Events().All(ctx, parentID)
	res := mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{FallbackWorktree: "main"})
	for _, r := range res {
		if want := map[string]Outcome{geminiMain: Unchanged, geminiAgent: Imported}[r.ID]; r.Outcome != want {
			t.Errorf("%s: %s, want %s", r.ID, r.Outcome, want)
		}
	}
	checkLinked(t, st, parentID, resultSession(res, geminiAgent), geminiTaskCall)
	if after, _ := st.Events().All(ctx, parentID); len(after) != len(before) {
		t.Errorf("parent has %d events, had %d", len(after), len(before))
	}
	mustCheck(t, st)
}
