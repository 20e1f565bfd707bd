package agents

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

func TestLoadTranscript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrapped := codec.ContextOpenTag + "\n## User\nold\n" + codec.ContextCloseTag + "\n\nreal prompt"
	ok := write("ok.jsonl", `{"type":"user","message":{"role":"user","content":"`+jsonEscape(wrapped)+`"},"session_id":"s"}`+"\n")
	events, f, _, err := LoadTranscript(ok, parse.FormatClaudeStream, parse.Options{})
	if err != nil || f != parse.FormatClaudeStream {
		t.Fatalf("LoadTranscript = %v, %s", err, f)
	}
	if len(events) != 1 || events[0].Content != "real prompt" {
		t.Errorf("events = %+v, want the clean prompt only", events)
	}
	bad := write("bad.jsonl", "{broken\nnot json\n")
	if _, _, _, err := LoadTranscript(bad, parse.FormatCodexExec, parse.Options{}); !errors.Is(err, parse.ErrNotTranscript) {
		t.Errorf("LoadTranscript(all malformed) = %v, want ErrNotTranscript", err)
	}
}

func jsonEscape(s string) string {
	b := []byte{}
	for _, r := range s {
		switch r {
		case '\n':
			b = append(b, '\\', 'n')
		case '"', '\\':
			b = append(b, '\\', byte(r))
		default:
			b = append(b, string(r)...)
		}
	}
	return string(b)
}

func TestDetectRejectsFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"notes.txt":    "just some notes\nnothing to see\n",
		"empty.jsonl":  "",
		"package.json": "{\n  \"name\": \"x\",\n  \"version\": \"1.0.0\"\n}\n",
		"other.jsonl":  `{"level":"info","msg":"started"}` + "\n" + `{"level":"warn","msg":"slow"}` + "\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := ParseFile(path, parse.FormatAuto, parse.Options{}); !errors.Is(err, parse.ErrNotTranscript) {
			t.Errorf("ParseFile(%s, auto) error = %v, want ErrNotTranscript", name, err)
		}
	}
}

func TestDetectAutoParseCodex(t *testing.T) {
	for path, want := range detectCodexFixtures(t) {
		auto, got, _, err := ParseFile(path, parse.FormatAuto, parse.Options{Model: "gpt-5.5"})
		if err != nil || got != want {
			t.Errorf("ParseFile(%s, auto) = %q, %v; want %q", path, got, err, want)
			continue
		}
		explicit, _, _, err := ParseFile(path, want, parse.Options{Model: "gpt-5.5"})
		if err != nil {
			t.Fatalf("ParseFile(%s, %s): %v", path, want, err)
		}
		if !slices.EqualFunc(auto, explicit, sameEventJSON) {
			t.Errorf("%s: auto and explicit parses differ", path)
		}
	}
}

// sameEventJSON reports whether a and b encode to the same stored JSON.
func sameEventJSON(a, b codec.Event) bool {
	ja, errA := codec.EncodeEventJSON(a)
	jb, errB := codec.EncodeEventJSON(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// detectCodexFixtures maps the Codex fixtures to their format: exec --json
// output (C) and rollouts (D).
func detectCodexFixtures(t *testing.T) map[string]parse.Format {
	files := map[string]parse.Format{}
	for p, f := range map[string]parse.Format{
		"transcripts/C_*.jsonl":                                     parse.FormatCodexExec,
		"real-cli/codex-*/stdout.jsonl":                             parse.FormatCodexExec,
		"transcripts/D_*.jsonl":                                     parse.FormatCodexRollout,
		"real-cli/codex-*/transcripts/codex/sessions/*/*/*/*.jsonl": parse.FormatCodexRollout,
	} {
		for _, path := range fixtures.Glob(t, p) {
			files[path] = f
		}
	}
	if len(files) == 0 {
		fixtures.Missing(t, errors.New("no Codex fixtures (transcripts/[CD]_*.jsonl, real-cli/codex-*)"))
	}
	return files
}
