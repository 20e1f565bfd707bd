// Command agentcapture drives a real agent CLI (Gemini CLI, Qwen Code)
// headless against the scripted model of internal/fakemodel and keeps
// what it wrote: its stdout stream and its native history files, as the
// test data of the agent's parser package. Rerun it to refresh them:
//
//	go run ./internal/agentcapture -agent gemini -out agents/gemini/testdata/capture
//	go run ./internal/agentcapture -agent qwen -out agents/qwen/testdata/capture
//
// -only runs the named scenarios alone (the sub-agent capture lives in a
// folder of its own, so that refreshing it leaves the others as they are):
//
//	go run ./internal/agentcapture -agent gemini -only subagent -out agents/gemini/testdata/subagent
//
// The CLI is found as the tests find it (LAZULI_GEMINI, PATH, or the cache
// scripts/install-clis.sh fills). Everything runs under a fixed scratch
// folder (os.TempDir()/lazuli-capture-<agent>, emptied first) with its own
// HOME, so the paths recorded in the captures are the same on every run;
// the user's own HOME is never read or written.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

func main() {
	agent := flag.String("agent", "", "gemini or qwen")
	out := flag.String("out", "", "folder to write the captures to (emptied first)")
	dump := flag.Bool("dump", false, "also write every request body the model received")
	only := flag.String("only", "", "run only these scenarios (comma-separated); default all but those marked alone")
	flag.Parse()
	a, ok := agents[*agent]
	if !ok || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	a.scenarios = selected(a.scenarios, *only)
	if len(a.scenarios) == 0 {
		log.Fatalf("no scenario %q of %s", *only, *agent)
	}
	if err := capture(a, *out, *dump); err != nil {
		log.Fatal(err)
	}
}

// scenario is one run of the CLI: its arguments after the common ones,
// the script of the model, and the file its stdout goes to.
type scenario struct {
	name   string
	prompt string
	resume bool // continue the last session
	script fakemodel.Script
	// routes send the conversations whose first user text they match
	// (a sub-agent's) to their own scripts.
	routes []fakemodel.Route
	// alone marks a scenario run only when -only names it.
	alone bool
}

// selected are the scenarios only names (comma-separated), or without it
// all but those marked alone.
func selected(all []scenario, only string) []scenario {
	var out []scenario
	for _, sc := range all {
		if only == "" && !sc.alone || only != "" && slices.Contains(strings.Split(only, ","), sc.name) {
			out = append(out, sc)
		}
	}
	return out
}

// agentSpec is how one CLI is run.
type agentSpec struct {
	name      string
	scenarios []scenario
	// prepare writes the CLI's settings into home and returns the
	// environment entries it needs beside fakemodel's.
	prepare func(srv *fakemodel.Server, home string) ([]string, error)
	// args returns the CLI's headless arguments for a prompt.
	args func(prompt string, resume bool) []string
	// history is the folder below home whose files are the captures.
	history []string
}

func capture(a agentSpec, out string, dump bool) error {
	cli := fakemodel.FindCLI(a.name)
	if cli == "" {
		return fmt.Errorf("%s not found (run scripts/install-clis.sh)", a.name)
	}
	root := filepath.Join(os.TempDir(), "lazuli-capture-"+a.name)
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, sc := range a.scenarios {
		srv := fakemodel.New(sc.script, sc.routes...)
		extra, err := a.prepare(srv, home)
		if err != nil {
			srv.Close()
			return err
		}
		env := append(srv.Env(home), extra...)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, cli, a.args(sc.prompt, sc.resume)...)
		cmd.Dir, cmd.Env = proj, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		runErr := cmd.Run()
		cancel()
		log.Printf("%s: %v in %s, %d model requests", sc.name, runErr, time.Since(start).Round(time.Millisecond), len(srv.Model()))
		if dump {
			for _, r := range srv.Requests() {
				name := fmt.Sprintf("%s.request-%02d-%s.json", sc.name, r.Seq, r.API)
				if err := os.WriteFile(filepath.Join(out, name), r.Raw, 0o644); err != nil {
					return err
				}
			}
		}
		srv.Close()
		if err := os.WriteFile(filepath.Join(out, sc.name+".stdout.jsonl"), stdout.Bytes(), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, sc.name+".stderr.txt"), stderr.Bytes(), 0o644); err != nil {
			return err
		}
		// The history as it is after each scenario: Gemini CLI rewrites
		// and deletes files on start-up, so a later state is not a superset.
		for _, h := range a.history {
			if err := copyTree(filepath.Join(home, h), filepath.Join(out, sc.name+".home", h)); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyTree copies the regular files below src to dst; a missing src
// copies nothing.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
