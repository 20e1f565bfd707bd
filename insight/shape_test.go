package insight

import (
	"testing"

	"github.com/lazuli-app/lazuli/internal/shape"
)

// The package's shape (ARCHITECTURE.md, STYLE.md §3 and §13): the Index
// keeps its file and each domain is a room of its own, so no type grows
// past maxMethods methods and no file past maxLines lines.
const (
	maxMethods = 25
	maxLines   = 550
)

// TestShape keeps the package within maxMethods methods a type and
// maxLines lines a file (tests included), and the Index's domains in its
// rooms.
func TestShape(t *testing.T) {
	lines, methods, err := shape.Of(".", true)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range lines {
		if n > maxLines {
			t.Errorf("%s has %d lines, want at most %d: split it by concern", name, n, maxLines)
		}
	}
	if methods["Index"] == 0 || methods["FileService"] == 0 {
		t.Fatalf("methods = %v: want Index, FileService's", methods)
	}
	for typ, n := range methods {
		if n > maxMethods {
			t.Errorf("%s has %d methods, want at most %d: give a domain a room of its own (rooms.go)", typ, n, maxMethods)
		}
	}
}
