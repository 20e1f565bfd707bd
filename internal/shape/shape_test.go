package shape

import (
	"os"
	"path/filepath"
	"testing"
)

// Of counts a file's lines and a type's methods, pointer, value and
// generic receivers alike, and leaves test files out unless asked.
func TestOf(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package p\n\ntype A struct{}\n\nfunc (a *A) One() {}\nfunc (a A) Two() {}\n\ntype G[T any] struct{}\n\nfunc (g *G[T]) Three() {}\n")
	write("a_test.go", "package p\n\nfunc (a *A) helper() {}\n")
	lines, methods, err := Of(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if methods["A"] != 2 || methods["G"] != 1 || lines["a.go"] != 10 || len(lines) != 1 {
		t.Errorf("Of = %v, %v", lines, methods)
	}
	lines, _, err = Of(dir, true)
	if err != nil || lines["a_test.go"] != 3 {
		t.Errorf("with tests: %v, %v", lines, err)
	}
}
