package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// sharedDir is the shared fixtures folder; a test that reads it calls
// needShared first.
var sharedDir, _ = fixtures.Path()

// needShared fails or skips t when the shared fixtures are missing (see
// internal/fixtures).
func needShared(t *testing.T) {
	t.Helper()
	fixtures.Dir(t)
}

// run runs a CLI command in dir and returns its exit code and output.
func run(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), &Env{Stdout: &out, Stderr: &errb, Dir: dir}, args)
	return code, out.String(), errb.String()
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestImportListShowContext(t *testing.T) {
	needShared(t)
	dir := t.TempDir()
	transcript, _ := filepath.Abs(filepath.Join(sharedDir, "real-cli", "claude-a-multitool", "stdout.jsonl"))
	code, out, errOut := run(t, dir, "import", "--name", "multi tool", "--worktree", "main", transcript)
	if code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut)
	}
	if strings.TrimSpace(out) != "S1" {
		t.Errorf("import printed %q, want S1", out)
	}
	storePath := filepath.Join(dir, ".azureal", "sessions.azs")
	if _, err := os.Stat(storePath); err != nil {
		t.Fatalf("store not created: %v", err)
	}

	code, out, errOut = run(t, dir, "ls", "--json")
	if code != 0 {
		t.Fatalf("ls exit %d: %s", code, errOut)
	}
	var sessions []map[string]any
	if err := json.Unmarshal([]byte(out), &sessions); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	if len(sessions) != 1 {
		t.Fatalf("ls --json = %d sessions, want 1", len(sessions))
	}
	s := sessions[0]
	for _, key := range []string{"id", "name", "display_name", "worktree", "created", "completed", "duration_ms", "cost_usd", "last_claude_uuid", "event_count", "message_count", "chars_since_compaction"} {
		if _, ok := s[key]; !ok {
			t.Errorf("ls --json element lacks %q", key)
		}
	}
	if s["display_name"] != "multi tool" || s["worktree"] != "main" || s["completed"] != true {
		t.Errorf("ls --json session = %v", s)
	}

	code, out, _ = run(t, dir, "show", "S1", "--json")
	if code != 0 {
		t.Fatalf("show exit %d", code)
	}
	var events []struct {
		Seq     int64           `json:"seq"`
		Kind    string          `json:"kind"`
		CharLen int64           `json:"char_len"`
		Event   json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal([]byte(out), &events); err != nil {
		t.Fatal(err)
	}
	if int64(len(events)) != int64(s["event_count"].(float64)) || events[0].Seq != 1 || events[0].Kind != "Init" {
		t.Errorf("show --json: %d events, first %+v", len(events), events[0])
	}
	for _, e := range events {
		if !strings.Contains(string(e.Event), `"`+e.Kind+`"`) {
			t.Errorf("event %d of kind %s is %s", e.Seq, e.Kind, e.Event)
		}
	}

	code, out, _ = run(t, dir, "show", "1")
	if code != 0 || !strings.Contains(out, "Tool: Edit") || !strings.Contains(out, "✓ completed") {
		t.Errorf("show text (exit %d):\n%s", code, out)
	}

	code, out, _ = run(t, dir, "context", "S1", "next", "step")
	if code != 0 || !strings.HasPrefix(out, "<azureal-session-context>\n") || !strings.HasSuffix(out, "</azureal-session-context>\n\nnext step") {
		t.Errorf("context (exit %d):\n%s", code, out)
	}

	code, out, errOut = run(t, dir, "check")
	if code != 0 {
		t.Errorf("check exit %d: %s %s", code, out, errOut)
	}
}

func TestImportBadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("just some notes\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"import", text},
		{"import", filepath.Join(dir, "missing.jsonl")},
		{"import", dir},
		{"import", "--format", "codex-exec", text},
		{"import", "--format", "bogus", text},
		{"import", "--session", "S1", "--name", "x", text},
		{"import"},
	}
	for _, args := range cases {
		code, _, errOut := run(t, dir, args...)
		if code == 0 {
			t.Errorf("%v: exit 0, want failure", args)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 1 || errOut == "" {
			t.Errorf("%v: stderr %q, want one clear line (plus usage)", args, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".azureal")); !os.IsNotExist(err) {
		t.Errorf("a failed import created the store folder: %v", err)
	}
}

func TestImportMixedFilesIsAllOrNothing(t *testing.T) {
	needShared(t)
	dir := t.TempDir()
	good, _ := filepath.Abs(filepath.Join(sharedDir, "real-cli", "codex-a-multitool", "stdout.jsonl"))
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"nope\":1}\n{broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := run(t, dir, "import", good, bad); code == 0 {
		t.Fatal("import of a bad file succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, ".azureal", "sessions.azs")); !os.IsNotExist(err) {
		t.Errorf("store was written although one file was bad")
	}
}

func TestReadCommandsLeaveFixturesUntouched(t *testing.T) {
	needShared(t)
	for _, name := range []string{"i_basic.azs", "ii_compaction.azs", "iv_legacy_v2.azs", "vi_injected_context.azs"} {
		src, _ := os.ReadFile(filepath.Join(sharedDir, "azs", name))
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		before := fileHash(t, path)
		for _, args := range [][]string{{"ls", "--json"}, {"show", "1", "--json"}, {"show", "1"}, {"context", "1", "x"}, {"check", "--json"}, {"dump"}} {
			code, _, errOut := run(t, "/", append(args, "--store", path)...)
			if code != 0 {
				t.Errorf("%s %v: exit %d: %s", name, args, code, errOut)
			}
		}
		if fileHash(t, path) != before {
			t.Errorf("%s changed on disk after read-only commands", name)
		}
	}
}

func TestContextMatchesFixtureDump(t *testing.T) {
	needShared(t)
	for _, name := range []string{"i_basic", "ii_compaction", "vi_injected_context"} {
		raw, err := os.ReadFile(filepath.Join(sharedDir, "azs", name+".dump.json"))
		if err != nil {
			t.Fatal(err)
		}
		var dump struct {
			Context map[string]*string `json:"context"`
		}
		if err := json.Unmarshal(raw, &dump); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "s.azs")
		src, _ := os.ReadFile(filepath.Join(sharedDir, "azs", name+".azs"))
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		for id, want := range dump.Context {
			if want == nil {
				continue
			}
			code, out, errOut := run(t, "/", "context", "--store", path, id, "NEXT PROMPT")
			if code != 0 || out != *want {
				t.Errorf("%s S%s: context (exit %d, %s) differs from AZUREAL's:\n got %q\nwant %q", name, id, code, errOut, trim(out), trim(*want))
			}
		}
	}
}

func trim(s string) string {
	if len(s) > 300 {
		return s[:150] + " … " + s[len(s)-150:]
	}
	return s
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"show"}, {"show", "abc"}, {"show", "S0"}, {"ls", "extra"}, {"nosuch"}, {"context"}} {
		code, _, errOut := run(t, dir, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitUsage, errOut)
		}
	}
	code, _, errOut := run(t, dir, "show", "S1")
	if code != ExitError || !strings.Contains(errOut, "no session store") {
		t.Errorf("show on a missing store: exit %d, %q", code, errOut)
	}
	code, out, _ := run(t, dir, "help")
	if code != 0 || !strings.Contains(out, "import") {
		t.Errorf("help: %d %q", code, out)
	}
	// run's usage offers every backend it runs.
	var names []string
	for _, b := range agents.Backends() {
		names = append(names, string(b))
	}
	if want := "[--backend " + strings.Join(names, "|") + "]"; len(names) < 7 || !strings.Contains(out, want) {
		t.Errorf("help does not offer %s (backends %v):\n%s", want, names, out)
	}
}

func TestParseSessionID(t *testing.T) {
	for in, want := range map[string]int64{"3": 3, "S3": 3, "s12": 12, " S7 ": 7} {
		if got, err := ParseSessionID(in); err != nil || got != want {
			t.Errorf("ParseSessionID(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "S", "x3", "-1", "0", "S-2"} {
		if _, err := ParseSessionID(in); err == nil {
			t.Errorf("ParseSessionID(%q) succeeded", in)
		}
	}
}

// TestListRolloutWithoutTaskComplete: an older Codex rollout writes no
// task_complete, so only its interrupted turns store a Complete (failed);
// its last turn ended normally after them. ls must not call the session
// failed from that earlier Complete: how it ended is unknown (○).
func TestListRolloutWithoutTaskComplete(t *testing.T) {
	needShared(t)
	dir := t.TempDir()
	path, _ := filepath.Abs(filepath.Join(sharedDir, "transcripts",
		"D_agentcmd_rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"))
	if code, _, errOut := run(t, dir, "import", path); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	code, out, errOut := run(t, dir, "ls")
	if code != 0 {
		t.Fatalf("ls: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("ls printed %q, want a header and one session", out)
	}
	if f := strings.Fields(lines[1]); len(f) < 2 || f[0] != "S1" || f[1] != "○" {
		t.Errorf("ls row %q, want S1 with status ○ (its last turn stored no Complete)", lines[1])
	}
}
