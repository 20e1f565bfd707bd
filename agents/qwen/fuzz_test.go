package qwen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParsers feeds arbitrary input, line by line, to both parsers,
// seeded with the captures: they must not panic, and Tail must be what
// Finish then returns.
func FuzzParsers(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(capture, "*", ".qwen", "projects", "*", "chats", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(capture, "*.stdout.jsonl"))
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, s := NewChatParser(), NewStreamParser("")
		for _, line := range bytes.Split(data, []byte("\n")) {
			c.Feed(line)
			s.Feed(line)
		}
		tail := c.Tail()
		if got := c.Finish(); len(got) != len(tail) {
			t.Errorf("Tail gave %d events, Finish %d", len(tail), len(got))
		}
		s.Finish()
	})
}
