package qwen

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
)

// TestDetectStream: a saved `qwen --output-format stream-json` stdout is
// detected as Qwen's stream, not Claude's (whose shape it has), by its
// init line; every capture the real CLI wrote here.
func TestDetectStream(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "capture", "*.stdout.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		head, err := parse.PeekLines(bufio.NewReader(f), 200)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := parse.DetectFormat(head); got != FormatStream {
			t.Errorf("DetectFormat(%s) = %q, %v, want %q", filepath.Base(path), got, err, FormatStream)
		}
	}
}
