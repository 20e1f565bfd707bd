package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenDumps opens every AZUREAL-written fixture store (a copy) and
// compares Lazuli's dump with AZUREAL's, byte for byte.
func TestGoldenDumps(t *testing.T) {
	for _, sub := range []string{"azs", "reference"} {
		for _, src := range fixtureStores(t, sub) {
			name := sub + "/" + strings.TrimSuffix(filepath.Base(src), ".azs")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				checkGoldenDump(t, src)
			})
		}
	}
}

func checkGoldenDump(t *testing.T, src string) {
	wantJSON, err := os.ReadFile(strings.TrimSuffix(src, ".azs") + ".dump.json")
	if err != nil {
		t.Fatal(err)
	}
	s := mustOpenPath(t, copyToWorktree(t, src))
	d, err := s.Dump(context.Background())
	if err != nil {
		t.Fatalf("Dump() = %v", err)
	}
	gotJSON, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer
	if err := s.WriteDump(context.Background(), &streamed); err != nil {
		t.Fatalf("WriteDump() = %v", err)
	}
	if !bytes.Equal(streamed.Bytes(), gotJSON) {
		t.Errorf("WriteDump() differs from Dump().JSON():\n%s\n---\n%s", streamed.Bytes(), gotJSON)
	}
	if bytes.Equal(gotJSON, wantJSON) {
		return
	}
	// Byte for byte: keys sorted at every depth, serde's number and string
	// forms, floats read the way AZUREAL's serde_json reads them.
	var got, want any
	if err := json.Unmarshal(gotJSON, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(wantJSON, &want); err != nil {
		t.Fatal(err)
	}
	diff := firstDiff("dump", got, want)
	if diff == "" {
		diff = "same values, different text: " + firstLineDiff(gotJSON, wantJSON)
	}
	t.Errorf("Dump().JSON() differs from %s: %s", filepath.Base(src), diff)
}

// firstLineDiff shows the first line where two texts differ.
func firstLineDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}
