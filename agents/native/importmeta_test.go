package native

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// TestImportMetaNamesStreamCaptures: a Claude stream capture is named
// after its first prompt like the other imports: the prompt of a user line
// when the stream has one, else the prompt of the Claude session its init
// line names (the native transcript in Claude's projects folder).
func TestImportMetaNamesStreamCaptures(t *testing.T) {
	const id = "5d6c2a10-1111-4222-8333-944455556666"
	home := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	project := filepath.Join(home, "projects", "-work-app")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	native := `{"type":"user","message":{"role":"user","content":"Rename the config loader\nand its tests"},"sessionId":"` + id + `","uuid":"u1","timestamp":"2026-01-02T03:04:05Z","cwd":"/work/app"}` + "\n"
	if err := os.WriteFile(filepath.Join(project, id+".jsonl"), []byte(native), 0o644); err != nil {
		t.Fatal(err)
	}
	initLine := `{"type":"system","subtype":"init","cwd":"/work/app","session_id":"` + id + `","tools":[],"model":"claude-opus-4-5"}`
	answer := `{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"` + id + `"}`
	prompt := `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Fix the flaky parser test"}]},"parent_tool_use_id":null,"session_id":"` + id + `"}`
	for _, tc := range []struct {
		name, lines, want string
	}{
		{"user line", initLine + "\n" + prompt + "\n" + answer + "\n", "Fix the flaky parser test"},
		{"init line's session", initLine + "\n" + answer + "\n", "Rename the config loader"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "claude_output.jsonl")
			if err := os.WriteFile(path, []byte(tc.lines), 0o644); err != nil {
				t.Fatal(err)
			}
			tr, err := agents.ReadTranscript(path, parse.FormatAuto, parse.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != parse.FormatClaudeStream {
				t.Fatalf("format %s", tr.Format)
			}
			if name, _ := ImportMeta(path, tr.Format, tr.Events); name != tc.want {
				t.Errorf("name %q, want %q", name, tc.want)
			}
		})
	}
}

// TestImportMetaNamesQwenStream: a saved Qwen Code stdout holds no prompt;
// its session is named after Qwen, not Claude, and dated by the file.
func TestImportMetaNamesQwenStream(t *testing.T) {
	path := filepath.Join("..", "qwen", "testdata", "subagent", "subagent.stdout.jsonl")
	tr, err := agents.ReadTranscript(path, parse.FormatAuto, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if name, _ := ImportMeta(path, tr.Format, tr.Events); !strings.HasPrefix(name, "qwen ") {
		t.Errorf("ImportMeta(%s) name %q, want qwen and the date", tr.Format, name)
	}
}
