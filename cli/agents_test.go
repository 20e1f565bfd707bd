package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	lazuliagents "github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
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
	agents := importAgents(t, dir, g, q)
	if agents[1] != "gemini" || agents[2] != "qwen" {
		t.Errorf("ls --json agents %v", agents)
	}
	_, out, _ := run(t, dir, "stats", "--json", "--by", "backend")
	var rows []insight.Totals
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Key != "gemini" || rows[0].Input != 500 || rows[1].Key != "qwen" || rows[1].Output != 116 {
		t.Errorf("stats --by backend %+v", rows)
	}
}

// TestImportedPiKeepsItsAgent imports Pi's session file and its --mode
// json stream, whose model is a Claude model: both are listed as Pi's
// (their usage rows name the agent that wrote them), and continue on Pi.
func TestImportedPiKeepsItsAgent(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob("../agents/pi/testdata/capture/sessions/*/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no Pi session capture")
	}
	session, _ := filepath.Abs(files[0])
	stream, _ := filepath.Abs("../agents/pi/testdata/capture/multi.stdout.jsonl")
	agents := importAgents(t, dir, session, stream)
	if len(agents) != 2 || agents[1] != "pi" || agents[2] != "pi" {
		t.Errorf("ls --json agents %v, want both sessions Pi's", agents)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id := range agents {
		if m, err := lazuliagents.StoredSessionModel(context.Background(), st, id); err != nil || m != lazuliagents.PiDefault {
			t.Errorf("S%d continues with %q (%v), want %s", id, m, err, lazuliagents.PiDefault)
		}
	}
}

// importAgents imports files into a new store in dir and returns each
// session's agent as ls --json lists it.
func importAgents(t *testing.T, dir string, files ...string) map[int64]string {
	t.Helper()
	if code, out, errOut := run(t, dir, append([]string{"import"}, files...)...); code != 0 {
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
	return agents
}
