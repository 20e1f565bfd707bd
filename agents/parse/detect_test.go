package parse

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// detectCases are heads of one or more lines and the format they are, ""
// for none; they also seed FuzzDetectFormat.
var detectCases = []struct {
	name string
	head string
	want Format
}{
	{"claude stream init", `{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":[],"model":"m","uuid":"u"}`, FormatClaudeStream},
	{"claude stream result", `{"type":"result","subtype":"success","is_error":false,"duration_ms":1}`, FormatClaudeStream},
	{"claude transcript user", `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","timestamp":"t","sessionId":"s"}`, FormatClaudeTranscript},
	{"claude transcript summary", `{"type":"summary","summary":"S","leafUuid":"u"}`, FormatClaudeTranscript},
	{"claude transcript snapshot", `{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}`, FormatClaudeTranscript},
	{"codex exec", `{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}`, FormatCodexExec},
	{"codex exec killed", `{"type":"turn.started"}`, FormatCodexExec},
	{"codex rollout", `{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/p"}}`, FormatCodexRollout},
	{"codex rollout event", `{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}`, FormatCodexRollout},
	{"majority wins over a stray line", `{"type":"result"}` + "\n" + `{"type":"summary","summary":"S","leafUuid":"u"}` + "\n" + `{"type":"user","sessionId":"s"}`, FormatClaudeTranscript},
	{"tie goes to the first", `{"type":"turn.started"}` + "\n" + `{"type":"summary","leafUuid":"u"}`, FormatCodexExec},
	{"bad lines around a good one", "garbage\n\n{\"type\":\"turn.started\"\n\xef\xbb\xbf{\"type\":\"turn.completed\",\"usage\":{}}\n[1]", FormatCodexExec},
	{"claude lines without ids", `{"type":"user","message":{}}`, ""},
	{"rollout type without payload", `{"type":"session_meta"}`, ""},
	{"other JSON", `{"name":"lazuli","version":"1.0.0"}`, ""},
	{"text", "hello world\nsecond line", ""},
	{"empty", "", ""},
	{"blank lines", "\n  \n\t", ""},
	{"array of numbers", "[1, 2, 3]", ""},
	{"legacy codex exec", `{"model":"gpt-5-codex","approval":"never"}` + "\n" + `{"prompt":"hi"}` + "\n" + `{"id":"0","msg":{"type":"task_started"}}`, ""},
	{"legacy codex rollout", `{"id":"x","timestamp":"t","instructions":null}` + "\n" + `{"record_type":"state"}`, ""},
}

func TestDetectFormat(t *testing.T) {
	for _, tc := range detectCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DetectFormat(detectHead(tc.head))
			if tc.want == "" {
				if !errors.Is(err, ErrNotTranscript) || got != "" {
					t.Errorf("DetectFormat(%q) = %q, %v; want an ErrNotTranscript error", tc.head, got, err)
				}
				return
			}
			if got != tc.want || err != nil {
				t.Errorf("DetectFormat(%q) = %q, %v; want %q", tc.head, got, err, tc.want)
			}
		})
	}
}

// detectHead splits s into lines as a file's head.
func detectHead(s string) [][]byte {
	if s == "" {
		return nil
	}
	return bytes.Split([]byte(s), []byte("\n"))
}

func TestDetectFormatMessages(t *testing.T) {
	tests := []struct {
		head, want string
		array      bool
	}{
		{"", "the input is empty", false},
		{"hello", "none of the first 1 non-blank lines is a JSON object of a known shape", false},
		{`{"id":"0","msg":{"type":"task_started"}}`, "legacy `codex exec --json` output from before Codex 0.44", false},
		{`{"record_type":"state"}`, "a legacy Codex rollout from before Codex 0.44", false},
		{"[\n  {\n    \"type\": \"thread.started\",\n    \"thread_id\": \"t\"\n  },\n  {\"type\": \"turn.started\"}\n]", "one JSON array of codex-exec messages", true},
		{"[\n  {\n    \"type\": \"system\",\n    \"session_id\": \"s\"\n  },\n  {\n    \"type\": \"assis", "one JSON array of claude-stream messages", true},
	}
	for _, tc := range tests {
		_, err := DetectFormat(detectHead(tc.head))
		if !errors.Is(err, ErrNotTranscript) || errors.Is(err, ErrJSONArray) != tc.array || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DetectFormat(%q) error = %v; want ErrNotTranscript (array %v) saying %q", tc.head, err, tc.array, tc.want)
		}
	}
}

// detectFileHead reads the head of path as Parse does.
func detectFileHead(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head, err := PeekLines(bufio.NewReaderSize(f, 1<<20), 200)
	if err != nil {
		t.Fatal(err)
	}
	return head
}

// detectExpected is the format of a fixture file, from its name (A_…, B_…)
// or its place in real-cli/, and "" for files that are no transcript.
func detectExpected(dir, path string) Format {
	rel, _ := filepath.Rel(dir, path)
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if parts[0] == "transcripts" {
		return map[byte]Format{'A': FormatClaudeStream, 'B': FormatClaudeTranscript, 'C': FormatCodexExec, 'D': FormatCodexRollout}[parts[1][0]]
	}
	if len(parts) < 3 || !strings.HasSuffix(path, ".jsonl") {
		return ""
	}
	claude := strings.HasPrefix(parts[1], "claude-")
	switch {
	case parts[2] == "stdout.jsonl" && claude:
		return FormatClaudeStream
	case parts[2] == "stdout.jsonl":
		return FormatCodexExec
	case parts[2] == "transcripts" && claude:
		return FormatClaudeTranscript
	case parts[2] == "transcripts":
		return FormatCodexRollout
	}
	return ""
}

func TestDetectFormatFixtures(t *testing.T) {
	dir := fixtures.Dir(t)
	var files []string
	for _, sub := range []string{"transcripts", "real-cli"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && !strings.HasSuffix(path, ".md") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	seen := map[Format]int{}
	for _, path := range files {
		want := detectExpected(dir, path)
		got, err := DetectFormat(detectFileHead(t, path))
		switch {
		case strings.HasSuffix(path, "A_claude-code-action_sample-turns.json"):
			if !errors.Is(err, ErrJSONArray) || !errors.Is(err, ErrNotTranscript) || !strings.Contains(err.Error(), string(FormatClaudeStream)) {
				t.Errorf("%s: DetectFormat = %q, %v; want a JSON-array error naming claude-stream", path, got, err)
			}
		case want == "":
			if !errors.Is(err, ErrNotTranscript) {
				t.Errorf("%s: DetectFormat = %q, %v; want ErrNotTranscript", path, got, err)
			}
		case got != want || err != nil:
			t.Errorf("%s: DetectFormat = %q, %v; want %q", path, got, err, want)
		}
		seen[want]++
	}
	for _, f := range Formats {
		if seen[f] == 0 {
			t.Errorf("no fixture of format %s was checked", f)
		}
	}
	if seen[""] == 0 {
		t.Error("no non-transcript file was checked")
	}
}

func FuzzDetectFormat(f *testing.F) {
	for _, tc := range detectCases {
		f.Add([]byte(tc.head))
	}
	fixtures.Seed(f, "transcripts/[CD]_*.jsonl", "transcripts/A_claude-agent-sdk-gleam_basic_query.jsonl", "transcripts/B_claude-code-log_4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DetectFormat(bytes.Split(data, []byte("\n")))
		if err != nil {
			if !errors.Is(err, ErrNotTranscript) || got != "" {
				t.Fatalf("DetectFormat = %q, %v; want \"\" and an ErrNotTranscript error", got, err)
			}
			return
		}
		if !slices.Contains(Formats, got) {
			t.Fatalf("DetectFormat = %q, not a concrete format", got)
		}
	})
}
