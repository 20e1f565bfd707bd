package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportStreamWithSubagents imports stream captures whose sub-agents'
// work used to be dropped: each sub-agent becomes a session of its own,
// named after its parent, listed below it, with every tool call.
func TestImportStreamWithSubagents(t *testing.T) {
	needShared(t)
	dir := t.TempDir()
	for _, c := range []struct {
		rel         string
		subs, calls int
	}{
		{"real-cli/claude-g-subagent/stdout.jsonl", 1, 1},
		{"transcripts/A_sandbox_ai_compiler_claude-debug--claude_output.jsonl", 3, 79},
	} {
		path, _ := filepath.Abs(filepath.Join(sharedDir, c.rel))
		code, out, errOut := run(t, dir, "import", path)
		if code != 0 {
			t.Fatalf("import %s: exit %d: %s", c.rel, code, errOut)
		}
		parent := strings.TrimSpace(out)
		code, out, errOut = run(t, dir, "ls", "--json")
		if code != 0 {
			t.Fatalf("ls: %s", errOut)
		}
		var list []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		if "S"+itoa(list[0].ID) != parent {
			t.Fatalf("%s: %s is not listed first: %+v", c.rel, parent, list)
		}
		parentName := list[0].Name // named after the file, as every import path names sessions
		if parentName == "" {
			parentName = parent
		}
		calls := 0
		for _, s := range list[1 : 1+c.subs] {
			if !strings.HasPrefix(s.Name, parentName+" › ") {
				t.Errorf("%s: sub-agent session named %q", c.rel, s.Name)
			}
			_, out, _ := run(t, dir, "show", "--json", itoa(s.ID))
			calls += strings.Count(out, `"kind": "ToolCall"`)
		}
		if calls != c.calls {
			t.Errorf("%s: %d sub-agent tool calls stored, want %d", c.rel, calls, c.calls)
		}
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
