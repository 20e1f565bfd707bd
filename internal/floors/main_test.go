package main

import (
	"path/filepath"
	"testing"
)

// TestStoreDrawsWithoutCycles keeps the file drawing of store acyclic
// (ARCHITECTURE.md): every file uses only files on floors below it, so a
// file can be read knowing only what is under it.
func TestStoreDrawsWithoutCycles(t *testing.T) {
	g, err := draw(filepath.Join("..", "..", "store"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.files) < 20 {
		t.Fatalf("draw(store) read %d files, want the package's (more than 20)", len(g.files))
	}
	back, _ := g.backEdges()
	for _, b := range back {
		t.Errorf("store/%s uses store/%s, which uses it back (directly or through others): %v", b[0], b[1], sortedKeys(g.names[b[0]+">"+b[1]]))
	}
}

// TestDrawFindsCycles checks the drawing itself on a package with a cycle
// (a.go and b.go use each other; c.go uses a.go).
func TestDrawFindsCycles(t *testing.T) {
	g, err := draw(filepath.Join("testdata", "cycle"))
	if err != nil {
		t.Fatal(err)
	}
	back, floors := g.backEdges()
	if len(back) != 1 || floors != 3 {
		t.Errorf("backEdges() = %v, %d floors; want one reference back up, 3 floors", back, floors)
	}
}
