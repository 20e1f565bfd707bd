package agentwork

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Project is the scratch project the sessions run in: a git repository
// holding real source files, which the translated calls read, edit and
// search.
type Project struct {
	Dir   string
	files []string          // relative paths, sorted
	text  map[string]string // their contents as copied
	dirs  []string          // their folders, sorted
}

// skipDir names the folders of src a project leaves out.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "out" || name == "bin" || name == "testdata" || name == "node_modules"
}

// NewProject copies every .go file below src into dir (emptied first),
// keeping their folders, and commits them to a new git repository there.
func NewProject(src, dir string) (*Project, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	p := &Project{Dir: dir, text: map[string]string{}}
	seen := map[string]bool{}
	err := filepath.WalkDir(src, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name != src && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(src, name)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		p.files = append(p.files, rel)
		p.text[rel] = string(b)
		if dd := path.Dir(rel); !seen[dd] {
			seen[dd] = true
			p.dirs = append(p.dirs, dd)
		}
		return writeFile(filepath.Join(dir, rel), b)
	})
	if err != nil {
		return nil, fmt.Errorf("copy sources: %w", err)
	}
	if len(p.files) == 0 {
		return nil, fmt.Errorf("no .go file below %s", src)
	}
	sort.Strings(p.files)
	sort.Strings(p.dirs)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git %s: %w: %s", args[0], err, out)
		}
	}
	return p, nil
}

func writeFile(name string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, b, 0o644)
}

func pick(key string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// Call is a translated tool call on the project, before it is put in an
// agent's words: Kind with the fields it uses.
type Call struct {
	Kind             string // read, write, edit, shell, search or glob
	Path             string // absolute: read, write, edit
	Content          string // write
	Old, New         string // edit
	Command, Purpose string // shell
	Pattern          string // search, glob
}

// patterns are what searches look for in Go sources.
var patterns = []string{"func New", "return nil, fmt.Errorf", "context.Context", "TODO", "sync.Mutex",
	"json.Unmarshal", "os.ReadFile", "errors.Is", "t.Fatal", "defer ", "filepath.Join", "strings.Builder"}

// Resolve translates action n of a session to a call on the project: the
// file, command or pattern is picked by the action's key, so the same
// transcript gives the same calls.
func (p *Project) Resolve(a Action, n int) Call {
	key := fmt.Sprintf("%s|%d", a.Key, n)
	file := p.files[pick(a.Key, len(p.files))]
	abs := filepath.Join(p.Dir, filepath.FromSlash(file))
	dir := p.dirs[pick(a.Key, len(p.dirs))]
	switch a.Kind {
	case "read":
		return Call{Kind: "read", Path: abs}
	case "write":
		base := path.Base(filepath.ToSlash(a.Key))
		if base == "." || base == "/" || base == "" {
			base = "file.txt"
		}
		content := a.Content
		if content == "" {
			content = p.text[file]
		}
		return Call{Kind: "write", Path: filepath.Join(p.Dir, "notes", fmt.Sprintf("%03d-%s", n, base)), Content: content}
	case "edit":
		line := uniqueLine(p.text[file], key)
		if line == "" {
			return Call{Kind: "read", Path: abs}
		}
		return Call{Kind: "edit", Path: abs, Old: line, New: line + " // checked"}
	case "shell":
		purpose := a.Content
		if purpose == "" {
			purpose = "Run a command"
		}
		return Call{Kind: "shell", Command: command(a.Key, file, dir), Purpose: purpose}
	case "glob":
		return Call{Kind: "glob", Pattern: dir + "/*.go"}
	}
	return Call{Kind: "search", Pattern: patterns[pick(key, len(patterns))]}
}

// command is the shell command that stands for a real one: one with real
// output on the project, now and then one that fails.
func command(key, file, dir string) string {
	cmds := []string{
		"git log --oneline -n 40",
		"git status --short",
		"ls -la " + dir,
		"wc -l " + dir + "/*.go",
		fmt.Sprintf("grep -rn %q --include='*.go' %s | head -80", patterns[pick(key+"p", len(patterns))], dir),
		"head -n 150 " + file,
		"sed -n '1,250p' " + file,
		"git diff | head -200",
		"ls missing-folder",
	}
	return cmds[pick(key, len(cmds))]
}

// uniqueLine picks a line of text that occurs once in it and is long
// enough to say something, or "".
func uniqueLine(text, key string) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if len(strings.TrimSpace(l)) >= 12 && strings.Count(text, l) == 1 {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return lines[pick(key, len(lines))]
}
