// Command genstore writes a realistic AZUREAL v3 session store for the scale
// benchmark (see internal/genstore and BENCHMARKS.md):
//
//	go run ./internal/genstore/cmd/genstore -o PATH [-sessions 2000] [-events 1000000] [-big 50000] [-seed 1] [-force]
//
// It prints progress on stderr and the store's figures on stdout. PATH is
// written only when the store is complete (through PATH.tmp).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"sort"
	"syscall"
	"time"

	"github.com/lazuli-app/lazuli/internal/genstore"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "genstore:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) error {
	def := genstore.DefaultOptions()
	fs := flag.NewFlagSet("genstore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the store file to write (required)")
	sessions := fs.Int("sessions", def.Sessions, "sessions")
	events := fs.Int("events", def.Events, "events in all sessions together")
	big := fs.Int("big", def.Big, "events of the one big session (0: none)")
	seed := fs.Uint64("seed", def.Seed, "random seed: the same seed gives the same store")
	force := fs.Bool("force", false, "overwrite an existing file")
	quiet := fs.Bool("q", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("%w: -o PATH is required and nothing else", errUsage)
	}
	opts := genstore.Options{Sessions: *sessions, Events: *events, Big: *big, Seed: *seed}
	if !*quiet {
		opts.Progress = progressPrinter(stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := genstore.Create(ctx, *out, opts, *force)
	if !*quiet {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	printStats(stdout, *out, opts, st)
	return nil
}

// progressPrinter returns a Progress callback that rewrites one status
// line at most four times a second.
func progressPrinter(w io.Writer) func(genstore.Progress) {
	var last time.Time
	return func(p genstore.Progress) {
		if time.Since(last) < 250*time.Millisecond && p.Events < p.TotalEvents {
			return
		}
		last = time.Now()
		pct := 100.0
		if p.TotalEvents > 0 {
			pct = 100 * float64(p.Events) / float64(p.TotalEvents)
		}
		fmt.Fprintf(w, "\rgenstore: %d sessions, %d/%d events (%.1f%%), %.0f s ",
			p.Sessions, p.Events, p.TotalEvents, pct, p.Elapsed.Seconds())
	}
}

func printStats(w io.Writer, path string, opts genstore.Options, st genstore.Stats) {
	fmt.Fprintf(w, "store        %s\n", path)
	fmt.Fprintf(w, "options      -sessions %d -events %d -big %d -seed %d\n", opts.Sessions, opts.Events, opts.Big, opts.Seed)
	fmt.Fprintf(w, "size         %d bytes (%.1f MiB), %d pages of %d bytes\n", st.Bytes, float64(st.Bytes)/(1<<20), st.Pages, st.PageSize)
	fmt.Fprintf(w, "sessions     %d (big session S%d), %d sittings, %d compactions\n", st.Sessions, st.BigSession, st.Sittings, st.Compactions)
	fmt.Fprintf(w, "events       %d (%.0f bytes of file per event)\n", st.Events, float64(st.Bytes)/float64(max(1, st.Events)))
	lengths := slices.Clone(st.Lengths)
	sort.Ints(lengths)
	q := func(f float64) int { return lengths[min(len(lengths)-1, int(f*float64(len(lengths))))] }
	if len(lengths) > 0 {
		fmt.Fprintf(w, "lengths      min %d, median %d, p90 %d, p99 %d, max %d\n", lengths[0], q(0.5), q(0.9), q(0.99), lengths[len(lengths)-1])
	}
	fmt.Fprintf(w, "kinds       ")
	for _, k := range slices.Sorted(maps.Keys(st.Kinds)) {
		fmt.Fprintf(w, " %s %d", k, st.Kinds[k])
	}
	fmt.Fprintf(w, "\nworktrees   ")
	for _, k := range slices.Sorted(maps.Keys(st.Worktrees)) {
		fmt.Fprintf(w, " %s %d", k, st.Worktrees[k])
	}
	fmt.Fprintf(w, "\nneedles      (events holding it / of which prompts and replies)\n")
	for _, n := range genstore.Needles {
		c := st.Needles[n.Text]
		fmt.Fprintf(w, "  %-20s %d / %d\n", n.Text, c.Events, c.Messages)
	}
	fmt.Fprintf(w, "took         %.1f s\n", st.Elapsed.Seconds())
}
