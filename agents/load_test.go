package agents

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
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
	wrapped := store.ContextOpenTag + "\n## User\nold\n" + store.ContextCloseTag + "\n\nreal prompt"
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
