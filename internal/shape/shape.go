// Package shape measures a package's shape for its tests: the lines of its
// files and the methods of its types (STYLE.md: a new concern gets a type
// of its own; files stay short). It imports none of ours.
package shape

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// Of reads the .go files of dir and returns the lines of each file (test
// files only when withTests is set) and the methods of each type its
// non-test files declare.
func Of(dir string, withTests bool) (lines, methods map[string]int, err error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	lines, methods = map[string]int{}, map[string]int{}
	fset := token.NewFileSet()
	for _, path := range names {
		name := filepath.Base(path)
		test := strings.HasSuffix(name, "_test.go")
		if test && !withTests {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		lines[name] = strings.Count(string(src), "\n")
		if test {
			continue
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, fmt.Errorf("parse %s: %w", name, err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				methods[receiverType(fn.Recv.List[0].Type)]++
			}
		}
	}
	return lines, methods, nil
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
