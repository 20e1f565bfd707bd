package views

import (
	"testing"

	"github.com/lazuli-app/lazuli/internal/shape"
)

// The package's shape (ARCHITECTURE.md "Inside views", STYLE.md): a new
// concern of a view gets a type of its own, reached through the view, so
// no type grows past maxMethods methods and no file past maxLines lines.
const (
	maxMethods = 29
	maxLines   = 600
)

// TestShape keeps the package's non-test files within maxLines lines and
// its types within maxMethods methods.
func TestShape(t *testing.T) {
	lines, methods, err := shape.Of(".", false)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range lines {
		if n > maxLines {
			t.Errorf("%s has %d lines, want at most %d: split it by concern", name, n, maxLines)
		}
	}
	if methods["MainView"] == 0 || methods["Sidebar"] == 0 || methods["rowList"] == 0 {
		t.Fatalf("methods = %v: want MainView, Sidebar, rowList's", methods)
	}
	for typ, n := range methods {
		if n > maxMethods {
			t.Errorf("%s has %d methods, want at most %d: give a concern a type of its own, reached through it", typ, n, maxMethods)
		}
	}
}
