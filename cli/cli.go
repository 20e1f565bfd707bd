// Package cli is Lazuli's headless command line: the subcommands of the
// lazuli binary that never open a window (ls, show, import, context, check,
// dump, run, compact, fork, pin, archive, import-native, search, reindex,
// stats, files, refs, sql, chronicle, export, sync, team, mcp, permissions). It
// never uses Fyne.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, env *Env, args []string) error
}

// Env is what a command reads and writes besides the store.
type Env struct {
	Stdout, Stderr io.Writer
	// Dir is the folder relative paths and the default store resolve against.
	Dir string
}

func commands() []command {
	return append([]command{
		{"ls", "[--store P] [--all] [--json]", "list the sessions of a store (--all: archived ones too)", runList},
		{"show", "[--store P] SESSION [--json]", "print a session's transcript", runShow},
		{"import", "[--store P] [--session SESSION | --name NAME] [--worktree BRANCH] [--format F] [--no-full-text] FILE...", "import agent transcripts as sessions", runImport},
		{"import-native", "[--store P] [--AGENT-dir DIR]... [--project PATH] [--worktree BRANCH] [--reimport] [--include-own] [--dry-run] [--no-full-text] [--no-index] [--json]", "import the agents' own history (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode, Pi, Copilot CLI; --claude-dir, --codex-dir, --gemini-dir, --qwen-dir, --opencode-dir, --pi-dir, --copilot-dir), appending what is new", runImportNative},
		{"context", "[--store P] SESSION [PROMPT]", "print the prompt that would be sent to an agent", runContext},
		{"check", "[--store P] [--json]", "check a store's integrity and format", runCheck},
		{"dump", "[--store P]", "print a canonical JSON dump of a store", runDump},
		{"search", "[--store P]... [--project DIR] [--sessions] [--json] [--limit N] [--offset N] QUERY", "search every session of a project (or of the given stores): every hit, newest first, a page at a time (--limit, --offset); --sessions: each matching session once, most hits first (then newest hit)", runSearch},
		{"reindex", "[--store P]... [--project DIR]", "drop and rebuild the search and insight indexes of a project's stores", runReindex},
		{"stats", "[--store P]... [--project DIR] [--since DATE|7d|30d] [--by day|model|backend|worktree|session] [--json]", "tokens and cost of a project's sessions", runStats},
		{"files", "[--store P]... [--project DIR] [--session SESSION] [--recent N] [--json]", "the files the agents read and changed", runFiles},
		{"refs", "[--store P]... [--project DIR] [--session SESSION] [--json]", "the PRs, issues, commits, branches and URLs sessions mention", runRefs},
		{"sql", "[--store P]... [--project DIR] [--json] [--limit N] QUERY", "run one read-only SQL query over the insight index and the stores' events", runSQL},
		{"chronicle", "standup|tips|improve [--store P]... [--project DIR] [--since 24h|7d|DATE|all] [--agent auto|builtin|" + backendChoices() + "] [--json]", "write a standup, tips, or where the agent struggled, from the history (every claim cites its session and event)", runChronicle},
		{"export", "[--store P] SESSION [--format md|html|json] [-o FILE|-] [--redact | --allow-secrets] [--force] [--scan-only] [--json]", "export a session to Markdown, HTML or JSON after a secret scan", runExport},
		{"run", "[--store P] [--session SESSION | --name NAME] [--backend " + backendChoices() + "] [--model M] [--save-on chunk|step|turn] [--save-buffer-ms MS] [--save-buffer-size N] [--no-full-text] [--yes] [--json] [--] PROMPT|-", "run an agent CLI on a prompt (after --, a prompt starting with - is not an option), saving its events as they stream (--save-on: in chunks, at each model step or at the turn's end)", runRun},
		{"compact", "[--store P] SESSION [--agent auto|builtin|" + backendChoices() + "] [--json]", "compact a session's older history into a summary", runCompact},
		{"sync", "push --pg URL [--project DIR | --store P]... [--machine NAME] [--allow-secrets] [--watch] [--json]", "push sessions to the team's PostgreSQL database", runSync},
		{"team", "ls|show|search|stats|pull --pg URL [--json] [ARGS]", "browse, search, total and pull the team's sessions", runTeam},
		{"fork", "[--store P] SESSION --at SEQ [--name N] [--json]", "start a new session from a copy of a session's history before one of its prompts", runFork},
		{"mcp", mcpUsage, "serve the project's history to agents as a read-only MCP server (stdio; --listen: HTTP on loopback with a token; --print-config CLI: how to add it to your own CLI)", runMCP},
		{"permissions", permissionsUsage, "show or change a session's permission mode and rules (or, with --project, the project's defaults)", runPermissions},
	}, pinCommands()...)
}

// IsCommand reports whether name is a CLI subcommand (or a help request),
// so the binary can route it here instead of opening a window.
func IsCommand(name string) bool {
	if name == "help" || name == "-h" || name == "--help" || name == MCPPermissionsCommand {
		return true
	}
	for _, c := range commands() {
		if c.name == name {
			return true
		}
	}
	return false
}

// Main runs the command of args (without the program name) in the current
// folder, with the process's standard output and error, until it ends or
// the process is interrupted (SIGINT, SIGTERM), and returns the exit code.
// It is all a headless command needs of the process: no window, no Fyne.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "lazuli: %v\n", err)
		return ExitError
	}
	return Run(ctx, &Env{Stdout: os.Stdout, Stderr: os.Stderr, Dir: wd}, args)
}

// Run runs the subcommand in args[0] and returns the process exit code.
// Errors are printed as one line on env.Stderr.
func Run(ctx context.Context, env *Env, args []string) int {
	if len(args) == 2 && args[0] == "help" && args[1] == "--man" {
		WriteMan(env.Stdout) // lazuli(1), for make deb
		return ExitOK
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(env.Stdout)
		return ExitOK
	}
	cmds := append(commands(), command{MCPPermissionsCommand, "--socket S", "", runMCPPermissions}) // hidden: claude runs it
	for _, c := range cmds {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, env, args[1:])
		switch {
		case err == nil:
			return ExitOK
		case errors.Is(err, flag.ErrHelp):
			return ExitOK
		case errors.As(err, new(*usageError)):
			fmt.Fprintf(env.Stderr, "lazuli %s: %s\nusage: lazuli %s %s\n", c.name, printable.Line(err.Error()), c.name, c.args)
			return ExitUsage
		default:
			fmt.Fprintf(env.Stderr, "lazuli %s: %s\n", c.name, printable.Line(project.OneLine(err)))
			return ExitError
		}
	}
	fmt.Fprintf(env.Stderr, "lazuli: unknown command %q (try lazuli help)\n", args[0]) // %q escapes
	return ExitUsage
}

func usage(w io.Writer) { writeUsage(w) }

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// newFlags returns a flag set that reports errors as usage errors.
func newFlags(name string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args allowing flags after positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseNoArgs parses args for a command that takes flags only.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	return nil
}

// StorePath resolves the --store argument: an .azs file, or a folder meaning
// FOLDER/.azureal/sessions.azs. "" means the current folder.
func StorePath(dir, p string) (string, error) {
	if p == "" {
		p = "."
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err == nil && fi.IsDir():
		return filepath.Join(p, ".azureal", "sessions.azs"), nil
	case err == nil:
		return p, nil
	case errors.Is(err, os.ErrNotExist) && strings.EqualFold(filepath.Ext(p), ".azs"):
		return p, nil
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("no such file or folder: %s", p)
	}
	return "", err
}

// ParseSessionID parses a session number: 3 or S3.
func ParseSessionID(s string) (int64, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "S"), "s")
	id, err := strconv.ParseInt(t, 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("%q is not a session number (want 3 or S3)", s)
	}
	return id, nil
}

// openStore opens the store named by --store for reading (and lazy writing).
func openStore(ctx context.Context, env *Env, p string) (*store.Store, error) {
	path, err := StorePath(env.Dir, p)
	if err != nil {
		return nil, err
	}
	return openWritable(ctx, env, path)
}

// openWritable opens the store at path for reading and lazy writing, and
// keeps it out of git (project.ExcludeStore) when its first write creates
// it: opening to look writes nothing. A failure to keep it out is a
// warning, never in the way of the store.
func openWritable(ctx context.Context, env *Env, path string) (*store.Store, error) {
	return store.Open(ctx, path, store.WithFirstWrite(func() {
		if err := project.ExcludeStore(path); err != nil {
			fmt.Fprintf(env.Stderr, "lazuli: warning: keep %s out of git: %v\n", path, err)
		}
	}))
}

// openExisting opens a store that must already exist: for reading and
// lazy writing, or with readOnly only to look at it (store.OpenReadOnly:
// the file stays byte-identical).
func openExisting(ctx context.Context, env *Env, p string, readOnly bool) (*store.Store, error) {
	path, err := StorePath(env.Dir, p)
	if err != nil {
		return nil, err
	}
	open := store.Open
	if readOnly {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no session store at %s", path)
		}
		open = store.OpenReadOnly
	}
	st, err := open(ctx, path)
	if err != nil {
		return nil, err
	}
	if !st.Exists() {
		st.Close()
		return nil, fmt.Errorf("no session store at %s", st.Path())
	}
	return st, nil
}

// parseSession parses args with fs (whose --store flag is storeArg),
// wanting one SESSION, and opens it (openSession): what a command on one
// session starts with.
func parseSession(ctx context.Context, env *Env, fs *flag.FlagSet, storeArg *string, args []string, readOnly bool) (*store.Store, store.Session, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, store.Session{}, err
	}
	if len(pos) != 1 {
		return nil, store.Session{}, usagef("want one SESSION")
	}
	return openSession(ctx, env, *storeArg, pos[0], readOnly)
}

// openSession opens the existing store named by --store (see openExisting)
// and finds the session named by arg (3 or S3). The caller closes the
// store.
func openSession(ctx context.Context, env *Env, storeArg, arg string, readOnly bool) (*store.Store, store.Session, error) {
	id, err := ParseSessionID(arg)
	if err != nil {
		return nil, store.Session{}, err
	}
	st, err := openExisting(ctx, env, storeArg, readOnly)
	if err != nil {
		return nil, store.Session{}, err
	}
	s, err := sessionByID(ctx, st, id)
	if err != nil {
		st.Close()
		return nil, store.Session{}, err
	}
	return st, s, nil
}

// sessionByID returns a session, with a clear message when it is missing.
func sessionByID(ctx context.Context, st *store.Store, id int64) (store.Session, error) {
	s, err := st.Sessions().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return s, fmt.Errorf("no session S%d in %s", id, st.Path())
	}
	return s, err
}
