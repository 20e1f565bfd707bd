package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
)

// nativeFlags are import-native's options.
type nativeFlags struct {
	store, project, worktree                   string
	dirs                                       map[string]*string // by agent: the --<agent>-dir flags
	reimport, includeOwn, dryRun, json, noFull bool
	noIndex                                    bool
}

// fullTextFlagHelp is the help of --no-full-text.
const fullTextFlagHelp = "keep only what AZUREAL keeps: not the full tool output and Write content Lazuli keeps beside it for search"

func runImportNative(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("import-native", env)
	var f nativeFlags
	fs.StringVar(&f.store, "store", "", "store file or folder")
	f.dirs = map[string]*string{}
	for _, src := range native.Sources() {
		f.dirs[src.Agent] = fs.String(src.Flag, "", fmt.Sprintf("%s's history folder (default $%s/%s, else ~/%s/%s)",
			src.Title, src.EnvVar, src.HistoryDir, src.HomeDir, src.HistoryDir))
	}
	fs.StringVar(&f.project, "project", "", "only sessions that ran in this folder or below it")
	fs.StringVar(&f.worktree, "worktree", "", "branch recorded for new sessions (default: the agent's, else the worktree's)")
	fs.BoolVar(&f.reimport, "reimport", false, "import files rewritten since their import again, as new sessions")
	fs.BoolVar(&f.includeOwn, "include-own", false, "also import turns that AZUREAL or Lazuli ran")
	fs.BoolVar(&f.dryRun, "dry-run", false, "list the sessions and what an import would do, without writing")
	fs.BoolVar(&f.json, "json", false, "print JSON")
	fs.BoolVar(&f.noFull, "no-full-text", false, fullTextFlagHelp)
	fs.BoolVar(&f.noIndex, "no-index", false, "leave the search index as it is (search or the window brings it up to date later)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	f.worktree = project.BranchName(f.worktree)
	opts, err := nativeOptions(env, f)
	if err != nil {
		return err
	}
	path, err := StorePath(env.Dir, f.store)
	if err != nil {
		return err
	}
	scan, err := native.Scan(ctx, opts)
	if err != nil {
		return err
	}
	for _, r := range scan.Roots {
		if !r.Found {
			fmt.Fprintf(env.Stderr, "%s history %s: %s\n", r.Agent, r.Path, r.Note)
		}
	}
	st, err := openWritable(ctx, env, path)
	if err != nil {
		return err
	}
	defer st.Close()
	st.FullText().SetKeep(!f.noFull)
	records, err := st.Native().Imports(ctx)
	if err != nil {
		return err
	}
	if f.dryRun {
		return printNativePreview(env, f.json, scan, records)
	}
	return importNative(ctx, env, f, opts, scan, st, records)
}

// nativeOptions resolves the history folders and the project folder: a
// --<agent>-dir flag, else the agent's default folder.
func nativeOptions(env *Env, f nativeFlags) (native.Options, error) {
	dirs, err := native.DefaultDirs()
	if err != nil {
		for _, d := range f.dirs {
			if *d == "" {
				return native.Options{}, err
			}
		}
		dirs = native.Dirs{}
	}
	abs := func(p string) string {
		if p != "" && !filepath.IsAbs(p) {
			return filepath.Join(env.Dir, p)
		}
		return p
	}
	for agent, d := range f.dirs {
		if *d != "" {
			dirs[agent] = abs(*d)
		}
	}
	return native.Options{Dirs: dirs, Project: abs(f.project), PreviewCache: native.DefaultPreviewCache()}, nil
}

// importNative imports the scanned sessions, printing each as it is stored.
func importNative(ctx context.Context, env *Env, f nativeFlags, opts native.Options, scan native.ScanResult, st *store.Store,
	records map[store.NativeKey]store.NativeImport) error {
	out := newLineBuffer(env.Stdout)
	defer out.Flush() //nolint:errcheck // a failed write to stdout has nowhere to be said
	env = &Env{Stdout: out, Stderr: env.Stderr, Dir: env.Dir}
	var (
		todo []native.Session
		all  []native.Result
	)
	for _, n := range scan.Sessions {
		if n.Own != "" && !f.includeOwn {
			all = append(all, ownResult(n))
			continue
		}
		todo = append(todo, n)
	}
	if !f.json {
		for _, s := range scan.Skipped {
			fmt.Fprintf(env.Stdout, "skipped    %s: %s\n", printable.Line(s.Path), printable.Line(s.Reason))
		}
		for _, r := range all {
			printNativeResult(env.Stdout, r)
		}
	}
	iopts := native.ImportOptions{
		Worktree: project.BranchName(f.worktree), Reimport: f.reimport,
		ClaudeHome: native.ClaudeHomeOf(opts.Dirs[native.Claude]), Records: records,
		Done: func(rs []native.Result) {
			if !f.json {
				for _, r := range rs {
					printNativeResult(env.Stdout, r)
				}
			}
		},
	}
	if f.worktree == "" && (f.reimport || anyNew(todo, records)) {
		// Only a new session is given a branch; asking git costs a process.
		iopts.FallbackWorktree = project.BranchOf(worktreeDir(st.Path()))
	}
	feed := startIndexFeed(ctx, st, f.noIndex)
	if feed != nil {
		iopts.Stored = feed.Stored
	}
	results, err := native.Import(ctx, st, todo, iopts)
	if feed != nil {
		feed.close(env, !f.json)
	}
	all = append(all, results...)
	sum := native.Summarize(all, len(scan.Skipped))
	if f.json {
		if jerr := writeJSON(env.Stdout, nativeReport(st.Path(), scan, all, sum)); jerr != nil {
			return jerr
		}
	} else {
		fmt.Fprintln(env.Stdout, sum)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return errors.New("interrupted; what was imported is complete, run again to import the rest")
	case err != nil:
		return err
	}
	return nil
}

// anyNew reports whether a session or sub-agent in sessions has no record.
func anyNew(sessions []native.Session, records map[store.NativeKey]store.NativeImport) bool {
	for _, n := range sessions {
		if _, ok := records[n.Key()]; !ok {
			return true
		}
		for _, s := range n.Subagents {
			if _, ok := records[s.Key()]; !ok {
				return true
			}
		}
	}
	return false
}

// ownResult skips a turn that AZUREAL or Lazuli ran.
func ownResult(n native.Session) native.Result {
	return native.Result{Agent: n.Agent, ID: n.ID, Path: n.Path, Outcome: native.Skipped,
		Reason: "run by AZUREAL or Lazuli (" + n.Own + "), so already in a store; --include-own imports it"}
}

// printNativeResult prints one line per native transcript; sub-agents are
// indented under their session.
func printNativeResult(w io.Writer, r native.Result) {
	indent := ""
	if r.ParentID != "" {
		indent = "  "
	}
	what := fmt.Sprintf("%s%-10s %s %s", indent, r.Outcome, r.Agent, printable.Line(r.ID))
	switch r.Outcome {
	case native.Imported:
		fmt.Fprintf(w, "%s: new session S%d, %d events\n", what, r.SessionID, r.Events)
	case native.Appended:
		fmt.Fprintf(w, "%s: S%d, +%d events\n", what, r.SessionID, r.Events)
	case native.Unchanged:
		fmt.Fprintf(w, "%s: S%d\n", what, r.SessionID)
	default:
		fmt.Fprintf(w, "%s: %s\n", what, printable.Line(r.Reason))
	}
	if r.Malformed > 0 {
		fmt.Fprintf(w, "%s  (%d malformed line(s) skipped in %s)\n", indent, r.Malformed, printable.Line(r.Path))
	}
}

// nativeResultJSON is one result in import-native --json.
type nativeResultJSON struct {
	Agent     string `json:"agent"`
	ID        string `json:"id"`
	ParentID  string `json:"parent_id,omitempty"`
	Path      string `json:"path"`
	Outcome   string `json:"outcome"`
	Session   int64  `json:"session,omitempty"`
	Events    int    `json:"events"`
	Malformed int    `json:"malformed_lines,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// nativeRootJSON is one history folder in --json output.
type nativeRootJSON struct {
	Agent string `json:"agent"`
	Path  string `json:"path"`
	Found bool   `json:"found"`
	Note  string `json:"note,omitempty"`
}

// nativeSkipJSON is a file that could not be read.
type nativeSkipJSON struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// nativeReportJSON is the output of import-native --json.
type nativeReportJSON struct {
	Store      string             `json:"store"`
	Roots      []nativeRootJSON   `json:"roots"`
	Unreadable []nativeSkipJSON   `json:"unreadable"`
	Results    []nativeResultJSON `json:"results"`
	Summary    native.Summary     `json:"summary"`
}

func nativeReport(path string, scan native.ScanResult, results []native.Result, sum native.Summary) nativeReportJSON {
	rep := nativeReportJSON{Store: path, Roots: rootsJSON(scan.Roots), Unreadable: skippedJSON(scan.Skipped),
		Results: make([]nativeResultJSON, 0, len(results)), Summary: sum}
	for _, r := range results {
		rep.Results = append(rep.Results, nativeResultJSON{Agent: r.Agent, ID: r.ID, ParentID: r.ParentID, Path: r.Path,
			Outcome: string(r.Outcome), Session: r.SessionID, Events: r.Events, Malformed: r.Malformed, Reason: r.Reason})
	}
	return rep
}

func rootsJSON(roots []native.Root) []nativeRootJSON {
	out := make([]nativeRootJSON, 0, len(roots))
	for _, r := range roots {
		out = append(out, nativeRootJSON{Agent: r.Agent, Path: r.Path, Found: r.Found, Note: r.Note})
	}
	return out
}

func skippedJSON(skips []native.Skip) []nativeSkipJSON {
	out := make([]nativeSkipJSON, 0, len(skips))
	for _, s := range skips {
		out = append(out, nativeSkipJSON{Path: s.Path, Reason: s.Reason})
	}
	return out
}

// nativePreviewJSON is one session in import-native --dry-run --json.
type nativePreviewJSON struct {
	Agent       string              `json:"agent"`
	ID          string              `json:"id"`
	ParentID    string              `json:"parent_id,omitempty"`
	Path        string              `json:"path"`
	Size        int64               `json:"size"`
	Modified    string              `json:"modified"`
	Started     string              `json:"started,omitempty"`
	Project     string              `json:"project"`
	Branch      string              `json:"branch,omitempty"`
	FirstPrompt string              `json:"first_prompt"`
	State       string              `json:"state"`
	Own         string              `json:"own,omitempty"`
	Subagents   []nativePreviewJSON `json:"subagents,omitempty"`
}

func previewJSON(n native.Session, records map[store.NativeKey]store.NativeImport) nativePreviewJSON {
	p := nativePreviewJSON{Agent: n.Agent, ID: n.ID, ParentID: n.ParentID, Path: n.Path, Size: n.Size,
		Modified: n.ModTime.UTC().Format(time.RFC3339), Project: n.Cwd, Branch: n.Branch,
		FirstPrompt: n.FirstPrompt, State: string(n.State(records)), Own: n.Own}
	if !n.Started.IsZero() {
		p.Started = n.Started.UTC().Format(time.RFC3339)
	}
	for _, s := range n.Subagents {
		p.Subagents = append(p.Subagents, previewJSON(s, records))
	}
	return p
}

// printNativePreview lists the sessions found and what an import would do
// with each: the CLI's preview.
func printNativePreview(env *Env, asJSON bool, scan native.ScanResult, records map[store.NativeKey]store.NativeImport) error {
	if asJSON {
		out := struct {
			Roots      []nativeRootJSON    `json:"roots"`
			Unreadable []nativeSkipJSON    `json:"unreadable"`
			Sessions   []nativePreviewJSON `json:"sessions"`
		}{rootsJSON(scan.Roots), skippedJSON(scan.Skipped), make([]nativePreviewJSON, 0, len(scan.Sessions))}
		for _, n := range scan.Sessions {
			out.Sessions = append(out.Sessions, previewJSON(n, records))
		}
		return writeJSON(env.Stdout, out)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tAGENT\tSTARTED\tSIZE\tPROJECT\tFIRST PROMPT")
	for _, n := range scan.Sessions {
		state := string(n.State(records))
		if n.Own != "" {
			state = "own run"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", state, n.Agent, startedText(n), display.Bytes(n.TotalSize()), printable.Line(n.Cwd), oneLine(n.Title(), 70))
		for _, s := range n.Subagents {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\t› %s\n", s.State(records), s.Agent, startedText(s), display.Bytes(s.Size), oneLine(s.Title(), 60))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range scan.Skipped {
		fmt.Fprintf(env.Stdout, "unreadable  %s: %s\n", printable.Line(s.Path), printable.Line(s.Reason))
	}
	subs := 0
	for _, n := range scan.Sessions {
		subs += len(n.Subagents)
	}
	found := display.Plural(len(scan.Sessions), "session")
	if subs > 0 {
		found += " (with " + display.Plural(subs, "sub-agent") + ")"
	}
	fmt.Fprintf(env.Stdout, "%s found; nothing was written (--dry-run).\n", found)
	return nil
}

func startedText(n native.Session) string {
	t := n.Started
	if t.IsZero() {
		t = n.ModTime
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// oneLine is the first line of s, cut to max runes, its control
// characters escaped.
func oneLine(s string, max int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return printable.Line(s)
}
