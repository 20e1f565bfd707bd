// Package app wires Lazuli together: it routes the command line, opens the
// stores of a project, builds the window from views, applies store changes to
// the views on the Fyne goroutine, and owns the root context and shutdown.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/lazuli-app/lazuli/cli"
)

// AppID is Lazuli's application ID, as in FyneApp.toml.
const AppID = "io.github.lazuli_app.lazuli"

// Config is what the window needs to start.
type Config struct {
	// Path is a project folder, a worktree or an .azs file; "" means the
	// current folder.
	Path string
	// Demo opens a demo project built from samples embedded in the binary.
	Demo bool
	// Link is the session and event to show first (deeplink.go).
	Link DeepLink
}

// Main runs Lazuli with the command-line arguments (without the program
// name) and returns the exit code. Subcommands never open a window.
func Main(args []string) int {
	if len(args) > 0 && cli.IsCommand(args[0]) {
		return cli.Main(args)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := ParseFlags(args, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return cli.ExitOK
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "lazuli: %v\n", err)
		return cli.ExitUsage
	}
	if stop, err := profileCPU(os.Getenv("LAZULI_CPUPROFILE")); err != nil {
		fmt.Fprintf(os.Stderr, "lazuli: %v\n", err)
		return cli.ExitError
	} else {
		defer stop()
	}
	if err := Run(ctx, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "lazuli: %v\n", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// ParseFlags reads the window's flags: [--demo] [PATH].
func ParseFlags(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("lazuli", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	var open, session, event string
	fs.BoolVar(&cfg.Demo, "demo", false, "open a demo project built from embedded sample sessions")
	fs.StringVar(&open, "open", "", "the project, worktree or .azs file to open (as PATH)")
	fs.StringVar(&session, "session", "", "show this session first (3 or S3)")
	fs.StringVar(&event, "event", "", "with --session: scroll to this event number")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: lazuli [--demo] [PATH | --open PATH] [--session S [--event N]] | lazuli lazuli://open?path=P&session=S&event=N   (lazuli help lists the commands)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	var err error
	if cfg.Link, err = parseLink(session, event); err != nil {
		return cfg, err
	}
	cfg.Path = open
	switch {
	case fs.NArg() == 0:
	case fs.NArg() == 1 && open == "" && strings.HasPrefix(fs.Arg(0), URLScheme+":"):
		if cfg.Path, cfg.Link, err = ParseURL(fs.Arg(0)); err != nil {
			return cfg, err
		}
	case fs.NArg() == 1 && open == "":
		cfg.Path = fs.Arg(0)
	default:
		return cfg, fmt.Errorf("want at most one PATH, got %d", fs.NArg()+min(len(open), 1))
	}
	if cfg.Demo && cfg.Link.Session > 0 {
		return cfg, errors.New("--demo takes no --session")
	}
	if cfg.Demo && cfg.Path != "" {
		return cfg, errors.New("--demo takes no PATH")
	}
	return cfg, nil
}

// profileCPU writes a CPU profile of the window's run to path (set by
// LAZULI_CPUPROFILE, for finding where the window spends its time); ""
// profiles nothing.
func profileCPU(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close() // a profile cut short is still read
	}, nil
}
