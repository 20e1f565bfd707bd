// Command windowbench runs the felt-latency benchmark of the window
// (internal/windowbench) on a store and prints each action's median and
// 95th percentile: a Markdown table, or with -json one object keyed by
// action. scripts/bench-window.sh is its front end.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/internal/windowbench"
)

func main() {
	var (
		storePath = flag.String("store", "", "the store to measure on (only read: a copy is measured)")
		work      = flag.String("work", "", "where the copy and its index are kept between runs")
		window    = flag.String("window", "bin/lazuli-window", "the window binary")
		headless  = flag.String("headless", "bin/lazuli", "the headless binary (builds the index)")
		rounds    = flag.Int("rounds", 5, "starts of the window")
		per       = flag.Int("per-start", 4, "repetitions of each action per start")
		queries   = flag.String("queries", "heisenbug,kaleidoscope,segfault,quokka", "Ctrl+K queries, comma-separated")
		find      = flag.String("find", "the", "the word Ctrl+F looks for in the big session")
		asJSON    = flag.Bool("json", false, "print one JSON object keyed by action")
		only      = flag.String("only", "", "run only these groups of actions, comma-separated: switch, keys, search, resize")
		failShot  = flag.String("fail-shot", "", "save a screenshot here when an action fails")
		verbose   = flag.Bool("v", false, "log progress and the window's output to stderr")
	)
	flag.Parse()
	if *storePath == "" || *work == "" {
		fmt.Fprintln(os.Stderr, "windowbench: -store and -work are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var log io.Writer = io.Discard
	if *verbose {
		log = os.Stderr
	}
	p, err := windowbench.Prepare(ctx, *storePath, *work, *headless, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "windowbench:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "windowbench: %d sessions; switching between %q and %q\n", p.Sessions, p.Small, p.Big)
	samples, err := windowbench.Run(ctx, windowbench.Config{
		Window: *window, Project: p.Project, CacheDir: p.CacheDir, Rounds: *rounds, PerStart: *per,
		Small: p.Small, Big: p.Big, BigCount: p.BigCount, Queries: strings.Split(*queries, ","), Find: *find,
		Timeout: 120 * time.Second, Log: log, FailShot: *failShot, Only: split(*only),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "windowbench:", err)
		os.Exit(1)
	}
	sum := samples.Summary()
	if *asJSON {
		b, _ := json.MarshalIndent(sum, "", "  ")
		fmt.Println(string(b))
		return
	}
	fmt.Println("| action | p50 ms | p95 ms | n |")
	fmt.Println("|---|---|---|---|")
	for _, a := range windowbench.Actions {
		if s, ok := sum[a]; ok {
			fmt.Printf("| %s | %.1f | %.1f | %d |\n", a, s.P50, s.P95, s.N)
		}
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
