// Package jsonlines edits a JSON Lines file for a test that needs values
// a capture cannot hold (the scripted model reports no cached or reasoning
// tokens, so every capture holds zeros there): each line is decoded,
// edited and encoded again into a copy.
package jsonlines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Edit writes a copy of src, named as src, in a temporary folder of t with
// edit applied to every line that is a JSON object (others are copied as
// they are), and returns its path. Each edited line is encoded anew: its
// keys sorted, its values otherwise the same.
func Edit(t testing.TB, src string, edit func(map[string]any)) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var o map[string]any
		if json.Unmarshal(line, &o) == nil && o != nil {
			edit(o)
			if line, err = json.Marshal(o); err != nil {
				t.Fatal(err)
			}
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
