// Command floors draws a package file by file: which of its files use which
// (a name declared in one file and used in another), the floors that
// drawing stacks into (a file stands one floor above the highest file it
// uses), and the references that run back up (between files that use each
// other, directly or through others: a cycle, so no floor order holds).
//
//	go run ./internal/floors ./store        # summary and the floors
//	go run ./internal/floors -up ./store    # and every reference in a cycle
//
// It type-checks the package's non-test files alone (imports are not
// loaded, so names of other packages stay unresolved; only the package's
// own names are drawn).
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	up := flag.Bool("up", false, "list every reference that runs back up")
	order := flag.String("order", "", "with -up: files bottom first (comma-separated); list the uses that run up this order instead")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: floors [-up] DIR")
		os.Exit(2)
	}
	g, err := draw(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "floors:", err)
		os.Exit(1)
	}
	if *order != "" {
		g.printOrder(strings.Split(*order, ","))
		return
	}
	g.print(*up)
}

// printOrder lists the uses that run up a given order of the files, with
// the names they use.
func (g *graph) printOrder(order []string) {
	at := map[string]int{}
	for i, f := range order {
		at[strings.TrimSpace(f)] = i + 1
	}
	for _, f := range g.files {
		if at[f] == 0 {
			fmt.Printf("not in the order: %s\n", f)
		}
	}
	n := 0
	for _, f := range g.files {
		for _, t := range sortedKeys(g.uses[f]) {
			if at[f] != 0 && at[t] != 0 && at[t] > at[f] {
				n++
				fmt.Printf("  %s -> %s (%d): %s\n", f, t, g.uses[f][t], strings.Join(sortedKeys(g.names[f+">"+t]), " "))
			}
		}
	}
	fmt.Printf("%d uses run up the order\n", n)
}

type graph struct {
	files []string
	uses  map[string]map[string]int // file -> file it uses -> references
	names map[string]map[string]int // "from>to" -> names used
}

type nullImporter struct{}

func (nullImporter) Import(path string) (*types.Package, error) {
	return nil, fmt.Errorf("not loaded: %s", path)
}

func draw(dir string) (*graph, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: nullImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check(dir, fset, files, info)
	g := &graph{uses: map[string]map[string]int{}, names: map[string]map[string]int{}}
	name := func(p token.Pos) string { return filepath.Base(fset.Position(p).Filename) }
	for _, f := range files {
		g.files = append(g.files, name(f.Pos()))
	}
	sort.Strings(g.files)
	add := func(at token.Pos, obj types.Object) {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return
		}
		// Only names declared at package level, and methods and fields.
		if obj.Parent() != nil && obj.Parent() != pkg.Scope() {
			return
		}
		from, to := name(at), name(obj.Pos())
		if from == to {
			return
		}
		if g.uses[from] == nil {
			g.uses[from] = map[string]int{}
		}
		g.uses[from][to]++
		k := from + ">" + to
		if g.names[k] == nil {
			g.names[k] = map[string]int{}
		}
		g.names[k][obj.Name()]++
	}
	for id, obj := range info.Uses {
		add(id.Pos(), obj)
	}
	for sel, s := range info.Selections {
		add(sel.Sel.Pos(), s.Obj())
	}
	return g, nil
}

// sccs returns the strongly connected components (Tarjan), each sorted.
func (g *graph) sccs() [][]string {
	index, low := map[string]int{}, map[string]int{}
	on := map[string]bool{}
	var stack []string
	var out [][]string
	n := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		on[v] = true
		for _, w := range sortedKeys(g.uses[v]) {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			sort.Strings(c)
			out = append(out, c)
		}
	}
	for _, f := range g.files {
		if _, ok := index[f]; !ok {
			visit(f)
		}
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// backEdges draws the files in a depth-first order from each file in name
// order: a reference to a file still being drawn runs back up. Without
// them the drawing is acyclic; floors counts its levels.
func (g *graph) backEdges() (back [][2]string, floors int) {
	state := map[string]int{} // 0 new, 1 on the path, 2 done
	isBack := map[[2]string]bool{}
	var visit func(v string)
	visit = func(v string) {
		state[v] = 1
		for _, w := range sortedKeys(g.uses[v]) {
			switch state[w] {
			case 0:
				visit(w)
			case 1:
				isBack[[2]string{v, w}] = true
				back = append(back, [2]string{v, w})
			}
		}
		state[v] = 2
	}
	for _, f := range g.files {
		if state[f] == 0 {
			visit(f)
		}
	}
	level := map[string]int{}
	var depth func(v string) int
	depth = func(v string) int {
		if l, ok := level[v]; ok {
			return l
		}
		l := 0
		for _, w := range sortedKeys(g.uses[v]) {
			if !isBack[[2]string{v, w}] {
				l = max(l, depth(w)+1)
			}
		}
		level[v] = l
		return l
	}
	for _, f := range g.files {
		floors = max(floors, depth(f)+1)
	}
	return back, floors
}

func (g *graph) print(listUp bool) {
	back, dfsFloors := g.backEdges()
	fmt.Printf("depth-first drawing: %d floors, %d references run back up\n", dfsFloors, len(back))
	comps := g.sccs()
	comp := map[string]int{}
	for i, c := range comps {
		for _, f := range c {
			comp[f] = i
		}
	}
	// Tarjan emits components in reverse topological order: a component's
	// uses come before it.
	floor := make([]int, len(comps))
	for i, c := range comps {
		for _, f := range c {
			for _, t := range sortedKeys(g.uses[f]) {
				if j := comp[t]; j != i && floor[j]+1 > floor[i] {
					floor[i] = floor[j] + 1
				}
			}
		}
	}
	var upRefs, upPairs int
	var upLines []string
	for _, f := range g.files {
		for _, t := range sortedKeys(g.uses[f]) {
			if comp[f] == comp[t] {
				upPairs++
				upRefs += g.uses[f][t]
				upLines = append(upLines, fmt.Sprintf("  %s -> %s (%d)", f, t, g.uses[f][t]))
			}
		}
	}
	top := 0
	for _, f := range floor {
		top = max(top, f)
	}
	cyclic := 0
	for _, c := range comps {
		if len(c) > 1 {
			cyclic += len(c)
		}
	}
	fmt.Printf("%d files; cycles: %d file pairs (%d uses) among %d files; without them, %d floors:\n",
		len(g.files), upPairs, upRefs, cyclic, top+1)
	byFloor := map[int][]string{}
	for i, c := range comps {
		label := strings.Join(c, " ")
		if len(c) > 1 {
			label = "{" + label + "}"
		}
		byFloor[floor[i]] = append(byFloor[floor[i]], label)
	}
	for f := top; f >= 0; f-- {
		sort.Strings(byFloor[f])
		fmt.Printf("%2d: %s\n", f, strings.Join(byFloor[f], "  "))
	}
	if listUp {
		fmt.Println("references that run back up (depth-first):")
		for _, b := range back {
			fmt.Printf("  %s -> %s (%d)\n", b[0], b[1], g.uses[b[0]][b[1]])
		}
		fmt.Println("file pairs in cycles (file -> file it uses):")
		fmt.Println(strings.Join(upLines, "\n"))
	}
}
