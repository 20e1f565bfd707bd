// Command proctime measures programs as processes, as a user runs them,
// interleaved with the program they are compared with, into a JSON report
// that it renders as Markdown tables (scripts/bench-process.sh drives it):
//
//	proctime init  -o REPORT [-busy N] [-commit PROGRAM=COMMIT]... [-workload TEXT]
//	proctime run   -o REPORT [-n 10] [-warmup 1] [-before SHELL] [-detail] [-timeout 15m] SPEC [:: SPEC]...
//	proctime count -o REPORT PROGRAM:ROW FILE|URL
//	proctime table REPORT
//
// A SPEC is PROGRAM:ROW [+ready=REGEXP] [+env=KEY=VALUE]... [+stdout=FILE]
// COMMAND [ARG...], or PROGRAM:ROW URL for an HTTP GET. run measures each
// spec -n times, one round of all of them after the other (A B A B …),
// running -before (with sh -c) before each round, and adds an item per
// spec to the report. count adds the number of distinct sessions in a
// FILE of `lazuli search --json` output, or in every page of agentsview's
// search API at URL. init starts a report with this machine's CPU model
// and cores.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/internal/proctime"
)

// errUsage marks a command line proctime cannot use.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:])
	switch {
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "proctime:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "proctime:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: proctime init, run, count or table", errUsage)
	}
	switch args[0] {
	case "init":
		return runInit(args[1:])
	case "run":
		return runRun(ctx, args[1:])
	case "count":
		return runCount(ctx, args[1:])
	case "table":
		if len(args) != 2 {
			return fmt.Errorf("%w: proctime table REPORT", errUsage)
		}
		r, err := proctime.ReadReport(args[1])
		if err != nil {
			return err
		}
		fmt.Print(r.Markdown())
		return nil
	}
	return fmt.Errorf("%w: unknown command %q (init, run, count, table)", errUsage, args[0])
}

// commits is the repeatable -commit PROGRAM=COMMIT flag.
type commits map[string]string

func (c commits) String() string { return fmt.Sprint(map[string]string(c)) }
func (c commits) Set(v string) error {
	p, commit, ok := strings.Cut(v, "=")
	if !ok || p == "" {
		return fmt.Errorf("%q is not PROGRAM=COMMIT", v)
	}
	c[p] = commit
	return nil
}

func runInit(args []string) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	out := fs.String("o", "", "the report's JSON file (required)")
	busy := fs.Int("busy", 0, "processes spinning on the CPU beside the run")
	workload := fs.String("workload", "", "what the programs work on, in a few words")
	cs := commits{}
	fs.Var(cs, "commit", "PROGRAM=COMMIT the figures are of (repeatable)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: proctime init -o REPORT [-busy N] [-commit P=C]... [-workload TEXT]", errUsage)
	}
	r := proctime.Report{Machine: proctime.ThisMachine(), Started: time.Now().UTC(), Busy: *busy,
		Workload: *workload, Commits: cs, Items: []proctime.Item{}}
	return r.Write(*out)
}

func runRun(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("o", "", "the report's JSON file, made by proctime init (required)")
	var o proctime.Options
	fs.IntVar(&o.Rounds, "n", 10, "rounds measured")
	fs.IntVar(&o.Warmup, "warmup", 1, "rounds run first and not counted")
	before := fs.String("before", "", "shell command run before each round, not timed")
	fs.BoolVar(&o.Detail, "detail", false, "show CPU and peak RSS rows in the table")
	fs.DurationVar(&o.Timeout, "timeout", 15*time.Minute, "bound on each measurement")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: proctime run -o REPORT [flags] SPEC [:: SPEC]", errUsage)
	}
	specs, err := proctime.ParseSpecs(fs.Args())
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	r, err := proctime.ReadReport(*out)
	if err != nil {
		return err
	}
	if *before != "" {
		o.Before = []string{"sh", "-c", *before}
	}
	o.Progress = os.Stderr
	items, err := proctime.Run(ctx, specs, o)
	if err != nil {
		return err
	}
	r.Items = append(r.Items, items...)
	return r.Write(*out)
}

func runCount(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("count", flag.ContinueOnError)
	out := fs.String("o", "", "the report's JSON file, made by proctime init (required)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" || fs.NArg() != 2 {
		return fmt.Errorf("%w: proctime count -o REPORT PROGRAM:ROW FILE|URL", errUsage)
	}
	program, row, ok := strings.Cut(fs.Arg(0), ":")
	if !ok || program == "" || row == "" {
		return fmt.Errorf("%w: label %q is not PROGRAM:ROW", errUsage, fs.Arg(0))
	}
	r, err := proctime.ReadReport(*out)
	if err != nil {
		return err
	}
	src := fs.Arg(1)
	it := proctime.Item{Program: program, Row: row, Kind: "count", Command: src, Time: time.Now().UTC()}
	var n int
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		var hits int
		n, hits, err = proctime.AgentsviewSessions(ctx, src)
		it.Output = []string{fmt.Sprintf("%d hits", hits)}
	} else {
		var data []byte
		if data, err = os.ReadFile(src); err == nil {
			n, err = proctime.CountSessions(data)
		}
	}
	if err != nil {
		return fmt.Errorf("count %s: %w", src, err)
	}
	l := proctime.Load()
	it.Count, it.Load = &n, [2]float64{l, l}
	fmt.Fprintln(os.Stderr, it.Line())
	r.Items = append(r.Items, it)
	return r.Write(*out)
}
