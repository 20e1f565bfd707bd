package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/lazuli-app/lazuli"

// pkg is what go list says of one of our packages: its direct imports and
// every package it depends on, transitively (tests not included).
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listPackages runs go list over the whole module.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "list", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = p
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// ours returns the packages of this module among paths, without the module
// prefix.
func ours(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, module+"/"); ok {
			out = append(out, rest)
		}
	}
	return out
}

func TestLayers(t *testing.T) {
	pkgs := listPackages(t)
	get := func(name string) pkg {
		p, ok := pkgs[name]
		if !ok {
			t.Fatalf("no package %q in the module", name)
		}
		return p
	}

	// No Fyne below app and views: the model, the workflows and the CLI
	// are plain Go, testable without a display.
	plain := []string{"codec", "store", "store/listcache", "agents", "search", "insight", "indexdb", "chronicle", "export", "editdiff", "display", "printable", "safelink", "project", "teamsync", "cli", "launch", "trace",
		"permprompt", "permprompt/mcpserve", "mcpline", "recall", "recall/mcpserve"}
	sub := agentsPackages(pkgs)
	if len(sub) < 5 {
		t.Errorf("agents has subpackages %v; want agents/parse, claude, codex, native and summary checked too", sub)
	}
	for _, name := range append(plain, sub...) {
		for _, d := range get(name).Deps {
			if strings.HasPrefix(d, "fyne.io/") {
				t.Errorf("%s depends on %s: no Fyne below app and views", name, d)
				break
			}
		}
	}

	// store owns the file; of our packages it imports only codec (AZUREAL's
	// event model) and its own subpackages (store/listcache), which are
	// leaves (below).
	for _, d := range ours(get("store").Deps) {
		if d != "codec" && !strings.HasPrefix(d, "store/") {
			t.Errorf("store depends on %s: store imports only codec and its own subpackages", d)
		}
	}

	// The leaf packages import none of ours either.
	for _, name := range []string{"codec", "editdiff", "display", "printable", "safelink", "indexdb", "store/listcache", "launch", "trace", "mcpline"} {
		if deps := ours(get(name).Deps); len(deps) > 0 {
			t.Errorf("%s depends on %v: it imports none of our packages", name, deps)
		}
	}

	// views sends intents through interfaces it declares; it never reaches
	// agents or one of its subpackages, not even through another package.
	for _, d := range ours(get("views").Deps) {
		if isAgents(d) {
			t.Errorf("views depends on %s: views never imports agents", d)
		}
	}

	// internal/ is test and benchmark support: production code never
	// imports it.
	for name, p := range pkgs {
		if strings.HasPrefix(name, "internal/") {
			continue
		}
		for _, imp := range ours(p.Imports) {
			if strings.HasPrefix(imp, "internal/") {
				t.Errorf("%s imports %s: only tests use internal/", name, imp)
			}
		}
	}

	// app is the composition root: only main imports it.
	for name, p := range pkgs {
		if name != "" && slices.Contains(p.Imports, module+"/app") {
			t.Errorf("%s imports app: only main does", name)
		}
	}
}

// isAgents reports whether name (without the module prefix) is agents or
// one of its subpackages.
func isAgents(name string) bool {
	return name == "agents" || strings.HasPrefix(name, "agents/")
}

// agentsPackages returns agents' subpackages (agents/claude, …), sorted.
func agentsPackages(pkgs map[string]pkg) []string {
	var out []string
	for name := range pkgs {
		if isAgents(name) && name != "agents" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
