package store

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenDumps opens every AZUREAL-written fixture store (a copy) and
// compares Lazuli's dump with AZUREAL's, as parsed JSON values.
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
	var got, want any
	if err := json.Unmarshal(gotJSON, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(wantJSON, &want); err != nil {
		t.Fatal(err)
	}
	// reflect.DeepEqual, except that floats may differ by one ULP (ulpClose).
	if d := firstDiff("dump", got, want); d != "" {
		t.Errorf("Dump() differs from %s: %s", filepath.Base(src), d)
	}
}
