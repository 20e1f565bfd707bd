// Command agentwork builds the native-history workload of one agent CLI
// for the import benchmarks (scripts/bench-agents-import.sh): it drives
// the real CLI through sessions scripted from the shared fixtures' Claude
// transcripts (cached: the seed), then copies what it wrote with fresh ids
// to at least -mb megabytes, and prints the HOME whose history folder
// holds the workload.
//
//	go run ./internal/agentwork/cmd/agentwork -agent pi [-mb 100] [-cache DIR]
//
// The CLI is found as the tests find it (LAZULI_PI, PATH, or the cache
// scripts/install-clis.sh fills). The seed and the workload are kept in
// DIR/<agent>-<hash> (default ~/.cache/lazuli-agentwork), the workload
// rebuilt only when -mb changes.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/lazuli-app/lazuli/internal/agentwork"
	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

func main() {
	agent := flag.String("agent", "", "claude, gemini, qwen, opencode, pi or copilot")
	mb := flag.Int("mb", 100, "megabytes of history to write at least")
	cache := flag.String("cache", "", "cache folder (default ~/.cache/lazuli-agentwork)")
	fixtures := flag.String("fixtures", "../shared/fixtures/transcripts", "the shared fixtures' transcripts")
	src := flag.String("src", ".", "the source tree the scratch project is copied from (its .go files)")
	var o agentwork.SeedOptions
	flag.IntVar(&o.Sessions, "sessions", 0, "transcripts scripted (default 10)")
	flag.IntVar(&o.Turns, "turns", 0, "prompts per session (default 3)")
	flag.IntVar(&o.Actions, "actions", 0, "tool calls per turn at most (default 20)")
	flag.Parse()
	a, ok := agentwork.Agents[*agent]
	if !ok || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			log.Fatal(err)
		}
		*cache = filepath.Join(c, "lazuli-agentwork")
	}
	home, err := build(a, *cache, *fixtures, *src, *mb, o)
	if err != nil {
		log.Fatalf("agentwork: %v", err)
	}
	fmt.Println(home)
}

func build(a *agentwork.Agent, cache, fixtures, src string, mb int, o agentwork.SeedOptions) (string, error) {
	dir := filepath.Join(cache, agentwork.Key(a, o))
	seed := filepath.Join(dir, "seed")
	done := filepath.Join(seed, "DONE")
	if _, err := os.Stat(done); err != nil {
		cli := fakemodel.FindCLI(a.Name)
		if cli == "" {
			return "", fmt.Errorf("%s not found (run scripts/install-clis.sh)", a.Name)
		}
		logf, err := os.Create(filepath.Join(cache, a.Name+"-seed.log"))
		if err != nil {
			if err := os.MkdirAll(cache, 0o755); err != nil {
				return "", err
			}
			if logf, err = os.Create(filepath.Join(cache, a.Name+"-seed.log")); err != nil {
				return "", err
			}
		}
		defer logf.Close()
		log.Printf("agentwork: driving %s (log %s)", cli, logf.Name())
		if _, err := agentwork.Seed(context.Background(), a, cli, fixtures, src, seed, o, logf); err != nil {
			return "", err
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return "", err
		}
	}
	out := filepath.Join(dir, fmt.Sprintf("work-%dmb-r%d", mb, agentwork.ReplicationVersion))
	if _, err := os.Stat(filepath.Join(out, "DONE")); err == nil {
		return filepath.Join(out, "home"), writeCopies(a, seed, out, mb)
	}
	st, err := agentwork.Replicate(a, filepath.Join(seed, "home"), filepath.Join(out, "home"), int64(mb)*1e6)
	if err != nil {
		return "", err
	}
	log.Printf("agentwork: %s: %d copies, %d files, %.1f MB", a.Name, st.Copies, st.Files, float64(st.Bytes)/1e6)
	if err := os.WriteFile(filepath.Join(out, "DONE"), nil, 0o644); err != nil {
		return "", err
	}
	return filepath.Join(out, "home"), writeCopies(a, seed, out, mb)
}

// writeCopies writes out/COPIES: how many copies of the seed's work the
// workload holds, for the benchmark's equal-work rate.
func writeCopies(a *agentwork.Agent, seed, out string, mb int) error {
	n, err := agentwork.Copies(a, filepath.Join(seed, "home"), int64(mb)*1e6)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "COPIES"), []byte(fmt.Sprintln(n)), 0o644)
}
