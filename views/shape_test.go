package views

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]int{}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > maxLines {
			t.Errorf("%s has %d lines, want at most %d: split it by concern", name, n, maxLines)
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
	if methods["MainView"] == 0 || methods["Sidebar"] == 0 || methods["rowList"] == 0 {
		t.Fatalf("methods = %v: want MainView's, Sidebar's and rowList's", methods)
	}
	for typ, n := range methods {
		if n > maxMethods {
			t.Errorf("%s has %d methods, want at most %d: give a concern a type of its own, reached through it", typ, n, maxMethods)
		}
	}
}

// receiverType is the name of a method's receiver type, without its star
// or type parameters.
func receiverType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
