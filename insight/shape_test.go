package insight

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]int{}
	fset := token.NewFileSet()
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > maxLines {
			t.Errorf("%s has %d lines, want at most %d: split it by concern", name, n, maxLines)
		}
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				methods[receiverType(fn.Recv.List[0].Type)]++
			}
		}
	}
	if methods["Index"] == 0 || methods["FileService"] == 0 {
		t.Fatalf("methods = %v: want the Index's and its rooms'", methods)
	}
	for typ, n := range methods {
		if n > maxMethods {
			t.Errorf("%s has %d methods, want at most %d: give a domain a room of its own (rooms.go)", typ, n, maxMethods)
		}
	}
}

// receiverType is the name of a method's receiver type, without its star.
func receiverType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
