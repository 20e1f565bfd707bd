package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// runSearch is `lazuli search`: it brings the index of each store up to
// date, then prints the hits, newest first.
func runSearch(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("search", env)
	var sel storeSelection
	sel.bind(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", search.DefaultLimit, "at most this many hits")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	switch {
	case strings.TrimSpace(query) == "":
		return usagef("missing QUERY")
	case *limit < 1:
		return usagef("--limit must be at least 1")
	}
	stores, err := sel.open(ctx, env)
	if err != nil {
		return err
	}
	defer closeStores(stores)
	sources, notes := indexSources(ctx, env, stores)
	res, err := search.Stores(ctx, sources, query, *limit)
	for _, s := range sources {
		if s.Index != nil {
			s.Index.Close()
		}
	}
	if errors.Is(err, search.ErrEmptyQuery) || errors.Is(err, search.ErrShortQuery) || errors.Is(err, search.ErrLongQuery) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	for _, n := range append(notes, res.Note) {
		if n != "" {
			fmt.Fprintln(env.Stderr, n)
		}
	}
	if *asJSON {
		hits := res.Hits
		if hits == nil {
			hits = []search.Hit{}
		}
		return writeJSON(env.Stdout, hits)
	}
	printHits(env, res, query)
	return nil
}

// indexSources opens and updates the index of each store; a store whose
// index cannot be used is searched without one, with a note saying why.
func indexSources(ctx context.Context, env *Env, stores []*store.Store) ([]search.Source, []string) {
	var notes []string
	sources := make([]search.Source, 0, len(stores))
	for _, st := range stores {
		x, err := search.Open(ctx, st)
		if err == nil {
			var s search.Stats
			s, err = x.Update(ctx, progressPrinter(env, st.Path(), "indexing"))
			if err != nil {
				x.Close()
			} else if s.Damaged {
				notes = append(notes, search.DamagedNote(st.Path()))
			}
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("search index of %s: %s", st.Path(), project.OneLine(err)))
			sources = append(sources, search.Source{Store: st})
			continue
		}
		sources = append(sources, search.Source{Store: st, Index: x})
	}
	return sources, notes
}

// printHits prints each hit as a header line and an indented snippet, the
// matches in bold on a terminal.
func printHits(env *Env, res search.Result, query string) {
	tty := isTerminal(env.Stdout) && os.Getenv("NO_COLOR") == ""
	for _, h := range res.Hits {
		name := fmt.Sprintf("S%d", h.SessionID)
		if h.DisplayName != name {
			name += " " + h.DisplayName
		}
		fmt.Fprintf(env.Stdout, "%s · %s · %s · #%d %s\n", printable.Line(name), printable.Line(h.Worktree),
			printable.Line(h.Time), h.Seq, printable.Line(h.Kind))
		fmt.Fprintf(env.Stdout, "    %s\n", markHighlights(h.Snippet, h.Highlights, tty))
	}
	switch {
	case len(res.Hits) == 0:
		fmt.Fprintf(env.Stderr, "no matches for %q\n", query)
	case res.More:
		fmt.Fprintf(env.Stderr, "the newest %d hits; there are more (--limit N shows more)\n", len(res.Hits))
	}
}

// markHighlights returns snippet with its control characters escaped
// (package printable) and its highlighted ranges in bold when tty is set.
func markHighlights(snippet string, hl [][2]int, tty bool) string {
	if !tty || len(hl) == 0 {
		return printable.Line(snippet)
	}
	var b strings.Builder
	at := 0
	for _, r := range hl {
		if r[0] < at || r[1] > len(snippet) || r[0] >= r[1] {
			continue
		}
		b.WriteString(printable.Line(snippet[at:r[0]]))
		b.WriteString("\x1b[1m" + printable.Line(snippet[r[0]:r[1]]) + "\x1b[0m")
		at = r[1]
	}
	b.WriteString(printable.Line(snippet[at:]))
	return b.String()
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressPrinter returns a search.Progress that shows "indexing PATH:
// 45%" on env.Stderr when it is a terminal and the work has taken more
// than a second; nil otherwise.
func progressPrinter(env *Env, path, verb string) search.Progress {
	if !isTerminal(env.Stderr) {
		return nil
	}
	start, last := time.Now(), time.Time{}
	return func(done, total int64) {
		if time.Since(start) < time.Second || time.Since(last) < 200*time.Millisecond || total <= 0 {
			return
		}
		last = time.Now()
		fmt.Fprintf(env.Stderr, "\r\x1b[K%s %s: %d%%", verb, path, 100*done/total)
		if done >= total {
			fmt.Fprint(env.Stderr, "\r\x1b[K")
		}
	}
}

// storeSelection is the --store (repeatable) and --project flags of search
// and reindex. With neither, the project of the current folder is meant:
// every worktree of its git repository, or the folder's own store.
type storeSelection struct {
	stores  storeFlags
	project string
}

func (s *storeSelection) bind(fs *flag.FlagSet) {
	fs.Var(&s.stores, "store", "store file or folder (repeatable)")
	fs.StringVar(&s.project, "project", "", "project folder: the stores of all its worktrees")
}

// storeFlags collects repeated --store flags.
type storeFlags []string

func (f *storeFlags) String() string     { return strings.Join(*f, ",") }
func (f *storeFlags) Set(v string) error { *f = append(*f, v); return nil }

// open opens the selected stores, as ls and show do: for reading, which
// never changes them. Worktrees of a project that have no store yet are
// left out; a --store that does not exist, or a project without any store,
// is an error.
func (s *storeSelection) open(ctx context.Context, env *Env) ([]*store.Store, error) {
	if len(s.stores) > 0 && s.project != "" {
		return nil, usagef("--store and --project do not go together")
	}
	var paths []string
	explicit := len(s.stores) > 0
	if explicit {
		for _, p := range s.stores {
			path, err := StorePath(env.Dir, p)
			if err != nil {
				return nil, err
			}
			paths = append(paths, path)
		}
	} else {
		dir := s.project
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(env.Dir, dir)
		}
		wts, err := project.Resolve(dir)
		if err != nil {
			return nil, err
		}
		for _, wt := range wts {
			paths = append(paths, wt.StorePath)
		}
	}
	var stores []*store.Store
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) && !explicit {
			continue
		}
		st, err := store.Open(ctx, p)
		if err == nil && !st.Exists() {
			st.Close()
			err = fmt.Errorf("no session store at %s", p)
		}
		if err != nil {
			closeStores(stores)
			return nil, err
		}
		stores = append(stores, st)
	}
	if len(stores) == 0 {
		return nil, fmt.Errorf("no session store: none of %s exists", strings.Join(paths, ", "))
	}
	return stores, nil
}

func closeStores(stores []*store.Store) {
	for _, st := range stores {
		st.Close()
	}
}
