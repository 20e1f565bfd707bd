package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/agents"
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
	if code, out, errOut := run(t, dir, "import", session, stream); code != 0 {
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
	if len(ls) != 2 || ls[0].Agent != "pi" || ls[1].Agent != "pi" {
		t.Errorf("ls --json: %+v, want both sessions Pi's", ls)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, s := range ls {
		if m, err := agents.StoredSessionModel(context.Background(), st, s.ID); err != nil || m != agents.PiDefault {
			t.Errorf("S%d continues with %q (%v), want %s", s.ID, m, err, agents.PiDefault)
		}
	}
}
