package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listSessions is `ls --json` in dir.
func listSessions(t *testing.T, dir string) []map[string]any {
	t.Helper()
	code, out, errOut := run(t, dir, "ls", "--json")
	if code != 0 {
		t.Fatalf("ls exit %d: %s", code, errOut)
	}
	var sessions []map[string]any
	if err := json.Unmarshal([]byte(out), &sessions); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	return sessions
}

// lazuli import names and dates a session as import-native does: after
// its first prompt, created when it ran (the transcript's first timestamp,
// a stamped stream's too — its file's modification time is older here;
// a stream without timestamps: the file's modification time,
// native.TestImportTranscriptDatesSubagentsFromTheFile); --name wins; the
// same file imported again is reported and stores nothing.
func TestImportNamesAndDates(t *testing.T) {
	needShared(t)
	dir := t.TempDir()
	claude := filepath.Join(sharedDir, "transcripts", "B_claude-code-log_256ba646-2c15-437a-98e9-4171aafd030e.jsonl")
	codex := filepath.Join(sharedDir, "transcripts", "D_agent-sessions_codex-small.jsonl")
	stream := filepath.Join(t.TempDir(), "stream.jsonl")
	b, err := os.ReadFile(filepath.Join(sharedDir, "real-cli", "claude-a-multitool", "stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stream, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ran := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	if err := os.Chtimes(stream, ran, ran); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{claude, codex, stream} {
		if code, _, errOut := run(t, dir, "import", "--worktree", "main", f); code != 0 {
			t.Fatalf("import %s: exit %d: %s", f, code, errOut)
		}
	}
	if code, _, errOut := run(t, dir, "import", "--worktree", "main", "--name", "mine", claude); code != 0 {
		t.Fatalf("import --name: exit %d: %s", code, errOut)
	}
	got := map[float64]map[string]any{}
	for _, s := range listSessions(t, dir) {
		got[s["id"].(float64)] = s
	}
	for id, want := range map[float64][2]string{
		1: {"Search if claude -p can make use of WebSearch and Task tool…", "2026-01-23 17:19:55"},
		2: {"", "2026-08-03 10:48:56"},
		3: {"", "2026-11-22 01:59:27"},
		4: {"mine", "2026-01-23 17:19:55"},
	} {
		s := got[id]
		if s == nil {
			t.Fatalf("no S%v: %v", id, got)
		}
		name := s["display_name"].(string)
		if (want[0] != "" && name != want[0]) || name == fmt.Sprintf("S%v", id) || s["created"] != want[1] {
			t.Errorf("S%v = %q created %v, want %q created %s", id, name, s["created"], want[0], want[1])
		}
	}

	// The same file again: reported, nothing stored.
	code, out, errOut := run(t, dir, "import", "--worktree", "main", codex)
	if code != 0 || strings.TrimSpace(out) != "S2" || !strings.Contains(errOut, "already imported as S2; nothing stored") {
		t.Errorf("re-import: exit %d, %q, %q", code, out, errOut)
	}
	if n := len(listSessions(t, dir)); n != 4 {
		t.Errorf("re-import left %d sessions, want 4", n)
	}
}
