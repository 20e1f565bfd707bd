package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
)

// parsedFile is one transcript, parsed and ready to store.
type parsedFile struct {
	path string
	agents.Transcript
}

func runImport(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("import", env)
	storeArg := fs.String("store", "", "store file or folder")
	sessionArg := fs.String("session", "", "append to this session instead of creating one")
	name := fs.String("name", "", "name of the new session")
	worktree := fs.String("worktree", "", "branch recorded for new sessions (default: the worktree's branch)")
	formatArg := fs.String("format", "auto", "auto, or one of: "+formatNames())
	noFull := fs.Bool("no-full-text", false, fullTextFlagHelp)
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("want at least one FILE")
	}
	if *sessionArg != "" && *name != "" {
		return usagef("--session and --name cannot be combined")
	}
	format, err := parse.LookupFormat(*formatArg)
	if err != nil {
		return usagef("%v", err)
	}
	var target int64
	if *sessionArg != "" {
		if target, err = ParseSessionID(*sessionArg); err != nil {
			return err
		}
	}
	path, err := StorePath(env.Dir, *storeArg)
	if err != nil {
		return err
	}
	// Parse everything first: a bad file must leave the store untouched.
	parsed := make([]parsedFile, 0, len(files))
	for _, f := range files {
		pf, err := parseTranscript(env, f, format)
		if err != nil {
			return err
		}
		parsed = append(parsed, pf)
	}
	st, err := openWritable(ctx, env, path)
	if err != nil {
		return err
	}
	defer st.Close()
	st.FullText().SetKeep(!*noFull)
	if target != 0 {
		if _, err := sessionByID(ctx, st, target); err != nil {
			return err
		}
	}
	*worktree = project.BranchName(*worktree)
	if *worktree == "" {
		*worktree = project.BranchOf(worktreeDir(path))
	}
	for _, pf := range parsed {
		r, err := storeParsed(ctx, st, pf, target, *worktree, *name)
		if err != nil {
			return fmt.Errorf("import %s: %w", pf.path, err)
		}
		subs := ""
		if k := len(pf.Subagents); k > 0 {
			subs = fmt.Sprintf(" (%d sub-agent(s) in sessions of their own)", k)
		}
		if r.Duplicate {
			fmt.Fprintf(env.Stderr, "%s (%s): already imported as S%d; nothing stored\n", pf.path, pf.Format, r.Session.ID)
		} else {
			fmt.Fprintf(env.Stderr, "%s (%s): %d events into S%d%s\n", pf.path, pf.Format, r.Events, r.Session.ID, subs)
		}
		fmt.Fprintf(env.Stdout, "S%d\n", r.Session.ID)
	}
	return nil
}

// parseTranscript reads and parses one file, reporting skipped lines.
func parseTranscript(env *Env, file string, format parse.Format) (parsedFile, error) {
	if !filepath.IsAbs(file) {
		file = filepath.Join(env.Dir, file)
	}
	if _, err := os.Stat(file); err != nil {
		return parsedFile{}, fmt.Errorf("cannot read %s: %w", file, errors.Unwrap(err))
	}
	if err := store.CheckRegular(file); err != nil {
		return parsedFile{}, fmt.Errorf("cannot import %w", err) // a FIFO would block forever
	}
	t, err := agents.ReadTranscript(file, format, parse.Options{})
	if err != nil {
		return parsedFile{}, fmt.Errorf("%s: %w", file, err)
	}
	if t.Stats.Malformed > 0 {
		fmt.Fprintf(env.Stderr, "%s: skipped %d malformed line(s) (line %s)\n", file, t.Stats.Malformed, joinInts(t.Stats.BadLines))
	}
	return parsedFile{path: file, Transcript: t}, nil
}

// storeParsed writes one parsed transcript as a new session, named and
// dated as import-native does (name, when given, wins), unless the store
// already holds it; or appends it to target. One transaction either way.
func storeParsed(ctx context.Context, st *store.Store, pf parsedFile, target int64, worktree, name string) (native.ImportedFile, error) {
	if target != 0 {
		_, n, err := agents.StoreTranscript(ctx, st, pf.Transcript, target, worktree, name)
		return native.ImportedFile{Session: store.Session{ID: target}, Events: n}, err
	}
	return native.ImportTranscript(ctx, st, worktree, name, pf.path, pf.Transcript)
}

// worktreeDir is the worktree folder a store path belongs to.
func worktreeDir(storePath string) string {
	dir := filepath.Dir(storePath)
	if filepath.Base(dir) == ".azureal" {
		return filepath.Dir(dir)
	}
	return dir
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// formatNames lists the formats import reads: "claude-stream, …".
func formatNames() string {
	var names []string
	for _, f := range parse.AllFormats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}
