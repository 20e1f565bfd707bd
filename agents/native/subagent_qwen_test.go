package native

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// The captured Qwen Code run whose agent tool started a sub-agent
// (agents/qwen/testdata/subagent, made by
// `go run ./internal/agentcapture -agent qwen -only subagent -out agents/qwen/testdata/subagent`).
const (
	qwenMain     = "ccbdc765-dfb8-4401-9ade-bd8e0fe6aa09"
	qwenAgent    = qwenMain + "/agent-general-purpose-call_fkm_0_0"
	qwenTaskCall = "call_fkm_0_0"
	qwenProject  = "/tmp/lazuli-capture-qwen/proj"
)

// copyQwenSubagent copies the captured ~/.qwen of the sub-agent run and
// returns its history folder (projects).
func copyQwenSubagent(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), ".qwen")
	copyTreeForTest(t, filepath.Join("..", "qwen", "testdata", "subagent", "subagent.home", ".qwen"), dst)
	return filepath.Join(dst, "projects")
}

// TestImportQwenSubagent: the transcript Qwen Code keeps of an agent
// tool's sub-agent (subagents/<parent>/agent-<id>.jsonl) is imported as a
// sub-agent of its parent, linked to the call its meta file names, with
// its events as the file has them; a second import is a no-op.
func TestImportQwenSubagent(t *testing.T) {
	ctx := context.Background()
	opts := Options{Dirs: Dirs{Qwen: copyQwenSubagent(t)}, Project: qwenProject}
	scan := mustScan(t, opts)
	if len(scan.Sessions) != 1 || len(scan.Sessions[0].Subagents) != 1 {
		t.Fatalf("scan %+v", scan.Sessions)
	}
	if n, s := scan.Sessions[0], scan.Sessions[0].Subagents[0]; n.ID != qwenMain || s.ID != qwenAgent || s.ParentID != qwenMain ||
		s.Cwd != qwenProject || s.FirstPrompt != "Count the lines of notes.txt and report the number." {
		t.Errorf("scan: main %s, sub-agent %+v", n.ID, s)
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(res); got[Imported] != 2 {
		t.Fatalf("outcomes %v", got)
	}
	mustCheck(t, st)
	parentID, childID := resultSession(res, qwenMain), resultSession(res, qwenAgent)
	checkLinked(t, st, parentID, childID, qwenTaskCall)
	child, err := st.Events().All(ctx, childID)
	if err != nil {
		t.Fatal(err)
	}
	want := []codec.Event{
		{Kind: codec.KindInit, CWD: qwenProject},
		{Kind: codec.KindUserMessage, Content: "Count the lines of notes.txt and report the number."},
		{Kind: codec.KindAssistantText, Text: "Counting."},
		{Kind: codec.KindToolCall, ToolUseID: "call_fkm_0_0", ToolName: "Bash"},
		{Kind: codec.KindToolResult, ToolUseID: "call_fkm_0_0", ToolName: "Bash",
			Content: "Command: wc -l < notes.txt\nDirectory: (root)\nOutput: 3\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)"},
		{Kind: codec.KindAssistantText, Text: "notes.txt has 3 lines."},
		{Kind: codec.KindComplete, Success: true},
	}
	if len(child) != len(want) {
		t.Fatalf("sub-agent events %+v, want %d", child, len(want))
	}
	for i, w := range want {
		g := child[i].Event
		if g.Kind != w.Kind || g.CWD != w.CWD || g.Content != codec.CompactEvent(w).Content || g.Text != w.Text ||
			g.ToolUseID != w.ToolUseID || g.ToolName != w.ToolName || g.Success != w.Success || g.IsError {
			t.Errorf("sub-agent event %d = %+v, want %+v", i, g, w)
		}
	}
	again := mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(again); got[Unchanged] != 2 {
		t.Errorf("re-import outcomes %v, want both unchanged", got)
	}
}
