package clicapture

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

var capture = flag.Bool("capture", false, "run the real CLIs and rewrite agents/<agent>/testdata/capture")

// The prompts of the captured sessions.
const (
	promptMulti    = "Create notes.txt with two lines, read it back, change beta to gamma, run it through the shell, list a missing folder, search for gamma, and ask a helper to count its lines."
	promptContinue = "How many lines does notes.txt have now?"
	promptError    = "Say hello."
	promptTask     = "Count the lines of notes.txt and report the number."
)

// agentTools names one CLI's tools and builds their inputs.
type agentTools struct {
	write, read, edit, shell, search, task func(dir string) fakemodel.ToolCall
}

// multiScript is the multi-tool turn: write, read, edit, a shell command
// that works and one that fails, a search, a sub-agent (when the CLI has
// one), then the answer.
func multiScript(dir string, tl agentTools) fakemodel.Script {
	s := fakemodel.Script{
		{Thinking: "The user wants a notes file; write it first.", Text: "I'll create the file first.", Tools: []fakemodel.ToolCall{tl.write(dir)}},
		fakemodel.Tools("", tl.read(dir)),
		fakemodel.Tools("Now the edit.", tl.edit(dir)),
		fakemodel.Tools("", tl.shell(dir)),
		fakemodel.Tools("", call(tl, "shell-fail", dir)),
		fakemodel.Tools("", tl.search(dir)),
	}
	if tl.task != nil {
		s = append(s, fakemodel.Tools("Asking a helper.", tl.task(dir)))
	}
	return append(s, fakemodel.Text("Done: notes.txt now holds alpha and gamma."))
}

// call builds the failing shell call from the shell builder's shape.
func call(tl agentTools, what, dir string) fakemodel.ToolCall {
	c := tl.shell(dir)
	in := c.Input.(map[string]any)
	in["command"] = "ls missing-folder"
	if _, ok := in["description"]; ok {
		in["description"] = "List a missing folder"
	}
	return c
}

// continueScript serves the continued prompt: its first request carries
// the ids of the first turn's steps, so its steps start after them.
func continueScript(first int, tl agentTools, dir string) fakemodel.Script {
	s := make(fakemodel.Script, first)
	for i := range s {
		s[i] = fakemodel.Text("(padding)")
	}
	c := tl.shell(dir)
	c.Input.(map[string]any)["command"] = "wc -l notes.txt"
	return append(s, fakemodel.Tools("", c), fakemodel.Text("notes.txt has 2 lines."))
}

// taskScript is the sub-agent's conversation.
func taskScript(tl agentTools, dir string) fakemodel.Script {
	c := tl.shell(dir)
	c.Input.(map[string]any)["command"] = "wc -l < notes.txt"
	return fakemodel.Script{fakemodel.Tools("", c), fakemodel.Text("notes.txt has 2 lines.")}
}

// agentSpec is how one CLI is captured.
type agentSpec struct {
	name  string
	tools agentTools
	// home prepares HOME for a server at url and returns the environment.
	home func(home, url string) ([]string, error)
	// args returns the arguments of a run: the prompt, and whether it
	// continues the last session.
	args func(prompt string, cont bool) []string
	// keep copies what the CLI wrote from home to out.
	keep func(home, out string) error
}

func TestCapture(t *testing.T) {
	if !*capture {
		t.Skip("-capture runs the real CLIs and rewrites the captures")
	}
	for _, a := range specs() {
		t.Run(a.name, func(t *testing.T) { captureAgent(t, a) })
	}
}

// captureAgent runs the three sessions of one CLI in one HOME and keeps
// what it wrote under agents/<agent>/testdata/capture.
func captureAgent(t *testing.T, a agentSpec) {
	bin := cliBin(a.name)
	root := t.TempDir()
	home, dir := filepath.Join(root, "home"), filepath.Join(root, "work")
	out := filepath.Join("..", "..", "agents", a.name, "testdata", "capture")
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	run := func(name string, s *fakemodel.Server, prompt string, cont bool) {
		env, err := a.home(home, s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
			if err := GitRepo(dir, env); err != nil {
				t.Fatal(err)
			}
		}
		args := a.args(prompt, cont)
		r, err := RunCLI(context.Background(), bin, args, env, dir, 5*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&log, "%s: %s %q -> exit %d, %d model requests\n", name, a.name, args, r.Code, len(s.Model()))
		t.Logf("%s exit %d, %d requests; stderr: %.500s", name, r.Code, len(s.Model()), r.Stderr)
		if err := os.WriteFile(filepath.Join(out, name+".stdout.jsonl"), r.Stdout, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	multi := multiScript(dir, a.tools)
	// OpenCode asks for a title in a conversation of its own.
	title := fakemodel.Route{Contains: "Generate a title for this conversation", Script: fakemodel.Script{fakemodel.Text("Notes file edits")}}
	routes := []fakemodel.Route{title}
	if a.tools.task != nil {
		routes = append(routes, fakemodel.Route{Contains: promptTask, Script: taskScript(a.tools, dir)})
	}
	s1 := fakemodel.New(multi, routes...)
	run("multi", s1, promptMulti, false)
	s1.Close()
	s2 := fakemodel.New(continueScript(len(multi)-1, a.tools, dir), title)
	run("continue", s2, promptContinue, true)
	s2.Close()
	s3 := fakemodel.New(fakemodel.Script{fakemodel.Fail(500, 0)}, title)
	run("error", s3, promptError, false)
	s3.Close()
	if err := a.keep(home, out); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&log, "work folder: %s\n", dir)
	if err := os.WriteFile(filepath.Join(out, "RUNS.txt"), []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyFiles copies the named files (relative to from) to to, keeping
// their relative paths; a missing file is an error.
func copyFiles(from, to string, names ...string) error {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(from, n))
		if err != nil {
			return err
		}
		p := filepath.Join(to, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copyGlob copies the files matching pattern under from.
func copyGlob(from, to, pattern string) error {
	m, err := filepath.Glob(filepath.Join(from, pattern))
	if err != nil {
		return err
	}
	if len(m) == 0 {
		return fmt.Errorf("no file matches %s", pattern)
	}
	var names []string
	for _, p := range m {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			rel, _ := filepath.Rel(from, p)
			names = append(names, rel)
		}
	}
	return copyFiles(from, to, names...)
}
