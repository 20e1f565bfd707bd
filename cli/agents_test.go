package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/insight"
)

// TestImportedAgentsAreFirstClass imports the captures Gemini CLI and
// Qwen Code wrote (their formats detected), then lists them with their
// agent and totals their usage by backend.
func TestImportedAgentsAreFirstClass(t *testing.T) {
	dir := t.TempDir()
	gemini, _ := filepath.Glob("../agents/gemini/testdata/capture/resumed.home/.gemini/tmp/proj/chats/*.jsonl")
	qwen, _ := filepath.Glob("../agents/qwen/testdata/capture/resumed.home/.qwen/projects/*/chats/*.jsonl")
	if len(gemini) != 1 || len(qwen) != 1 {
		t.Fatalf("captures %v %v", gemini, qwen)
	}
	g, _ := filepath.Abs(gemini[0])
	q, _ := filepath.Abs(qwen[0])
	if code, out, errOut := run(t, dir, "import", g, q); code != 0 {
		t.Fatalf("import: %s %s", out, errOut)
	}
	_, out, _ := run(t, dir, "ls", "--json")
	var ls []struct {
		ID    int64
		Agent string
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		t.Fatal(err)
	}
	agents := map[int64]string{}
	for _, s := range ls {
		agents[s.ID] = s.Agent
	}
	if agents[1] != "gemini" || agents[2] != "qwen" {
		t.Errorf("ls --json agents %v", agents)
	}
	_, out, _ = run(t, dir, "stats", "--json", "--by", "backend")
	var rows []insight.Totals
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Key != "gemini" || rows[0].Input != 500 || rows[1].Key != "qwen" || rows[1].Output != 116 {
		t.Errorf("stats --by backend %+v", rows)
	}
}
