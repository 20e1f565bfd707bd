package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// runSearch is `lazuli search`: it brings the index of each store up to
// date, then prints a page of the hits, newest first, or of the matching
// sessions, ranked. The answer is complete: no time budget cuts it short.
func runSearch(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("search", env)
	var sel storeSelection
	sel.bind(fs)
	asJSON := fs.Bool("json", false, "print JSON: {\"hits\" or \"sessions\": [...], \"more\", \"next_offset\", \"partial\", \"note\"}")
	var pg pageFlags
	pg.bind(fs, "hits (sessions with --sessions)")
	sessions := fs.Bool("sessions", false, "list each matching session once, ranked by its number of hits, then by its newest hit")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return usagef("missing QUERY")
	}
	if err := pg.check(); err != nil {
		return err
	}
	stores, err := sel.open(ctx, env)
	if err != nil {
		return err
	}
	defer closeStores(stores)
	sources, notes := indexSources(ctx, env, stores)
	defer lessGC()()
	opt := search.Options{Limit: pg.limit, Offset: pg.offset, Sessions: *sessions}
	res, err := search.Stores(ctx, sources, query, opt)
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
		return writeSearchJSON(env.Stdout, res, opt)
	}
	if *sessions {
		printSessionHits(env, res, query, opt)
	} else {
		printHits(env, res, query, opt)
	}
	return nil
}

// lessGC makes the collector run less often, up to a heap of 256 MiB,
// unless GOGC says otherwise, and returns what undoes it: a search of a
// common word decodes tens of thousands of events in a process that ends
// right after (about a fifth of its time went to the collector).
func lessGC() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(limit, 256<<20))
	percent := debug.SetGCPercent(400)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// pageFlags are the --limit and --offset flags of a paged answer.
type pageFlags struct {
	limit, offset int
}

func (p *pageFlags) bind(fs *flag.FlagSet, what string) {
	fs.IntVar(&p.limit, "limit", search.DefaultLimit, "at most this many "+what)
	fs.IntVar(&p.offset, "offset", 0, "skip this many "+what+" first (the next page starts at the last page's next_offset)")
}

func (p *pageFlags) check() error {
	switch {
	case p.limit < 1:
		return usagef("--limit must be at least 1")
	case p.offset < 0:
		return usagef("--offset must not be negative")
	}
	return nil
}

// searchJSON is the JSON answer of search and team search: the page of
// hits (or sessions), whether more follow it and the offset of the next
// page, whether the answer may lack matches (partial, with the note
// saying why), and the note, "" when there is nothing to say.
type searchJSON struct {
	More       bool   `json:"more"`
	NextOffset *int   `json:"next_offset,omitempty"`
	Partial    bool   `json:"partial"`
	Note       string `json:"note"`
}

// writeSearchJSON writes res as one JSON object, its hits (or sessions)
// one per line, without indentation: a common word has tens of thousands.
func writeSearchJSON(w io.Writer, res search.Result, opt search.Options) error {
	head := searchJSON{More: res.More, Partial: res.Partial, Note: res.Note}
	n := len(res.Hits)
	key := "hits"
	if opt.Sessions {
		n, key = len(res.Sessions), "sessions"
	}
	if res.More {
		next := opt.Offset + n
		head.NextOffset = &next
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	jw := printable.NewJSONWriter(bw)
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	fmt.Fprintf(&buf, ",%q:[", key)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
		var v any
		if opt.Sessions {
			v = &res.Sessions[i]
		} else {
			v = &res.Hits[i]
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		if _, err := jw.Write(buf.Bytes()); err != nil {
			return err
		}
		buf.Reset()
	}
	if n > 0 {
		buf.WriteByte('\n')
	}
	buf.WriteString("]}\n")
	if _, err := jw.Write(buf.Bytes()); err != nil {
		return err
	}
	if err := jw.Close(); err != nil {
		return err
	}
	return bw.Flush()
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
// matches in bold on a terminal, and says on stderr when more follow.
func printHits(env *Env, res search.Result, query string, opt search.Options) {
	tty := isTerminal(env.Stdout) && os.Getenv("NO_COLOR") == ""
	for _, h := range res.Hits {
		fmt.Fprintf(env.Stdout, "%s · %s · %s · #%d %s\n", printable.Line(hitName(h.SessionID, h.DisplayName)),
			printable.Line(h.Worktree), printable.Line(h.Time), h.Seq, printable.Line(h.Kind))
		fmt.Fprintf(env.Stdout, "    %s\n", markHighlights(h.Snippet, h.Highlights, tty))
	}
	pageNote(env, len(res.Hits), res.More, query, "hits", opt)
}

// printSessionHits prints each session with hits as a header line (its
// number of hits and where its newest is) and the newest hit's snippet.
func printSessionHits(env *Env, res search.Result, query string, opt search.Options) {
	tty := isTerminal(env.Stdout) && os.Getenv("NO_COLOR") == ""
	for _, s := range res.Sessions {
		h := s.Newest
		fmt.Fprintf(env.Stdout, "%s · %s · %s · %s · newest #%d %s\n", printable.Line(hitName(s.SessionID, s.DisplayName)),
			printable.Line(s.Worktree), printable.Line(h.Time), display.Plural(s.Hits, "hit"), h.Seq, printable.Line(h.Kind))
		fmt.Fprintf(env.Stdout, "    %s\n", markHighlights(h.Snippet, h.Highlights, tty))
	}
	pageNote(env, len(res.Sessions), res.More, query, "sessions", opt)
}

// hitName is "S<id>", with the session's name when it has one.
func hitName(id int64, displayName string) string {
	name := fmt.Sprintf("S%d", id)
	if displayName != name {
		name += " " + displayName
	}
	return name
}

// pageNote says on stderr that nothing matched, or that more follow the
// page and how to see them.
func pageNote(env *Env, n int, more bool, query, what string, opt search.Options) {
	switch {
	case n == 0 && opt.Offset == 0:
		fmt.Fprintf(env.Stderr, "no matches for %q\n", query)
	case n == 0:
		fmt.Fprintf(env.Stderr, "no %s after the first %d\n", what, opt.Offset)
	case more:
		fmt.Fprintf(env.Stderr, "%s %d–%d shown; there are more: --offset %d shows the next ones (--limit N shows more at once)\n",
			what, opt.Offset+1, opt.Offset+n, opt.Offset+n)
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
	paths, explicit, err := s.paths(env)
	if err != nil {
		return nil, err
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

// paths returns the selected stores' paths: the --store flags (explicit),
// or the stores of the project's worktrees, whether they exist or not.
func (s *storeSelection) paths(env *Env) (paths []string, explicit bool, _ error) {
	if len(s.stores) > 0 && s.project != "" {
		return nil, false, usagef("--store and --project do not go together")
	}
	if len(s.stores) > 0 {
		for _, p := range s.stores {
			path, err := StorePath(env.Dir, p)
			if err != nil {
				return nil, false, err
			}
			paths = append(paths, path)
		}
		return paths, true, nil
	}
	wts, err := project.Resolve(s.projectDir(env))
	if err != nil {
		return nil, false, err
	}
	for _, wt := range wts {
		paths = append(paths, wt.StorePath)
	}
	return paths, false, nil
}

// projectDir is --project (default the current folder) made absolute.
func (s *storeSelection) projectDir(env *Env) string {
	dir := s.project
	if dir == "" {
		dir = "."
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	return filepath.Clean(dir)
}

func closeStores(stores []*store.Store) {
	for _, st := range stores {
		st.Close()
	}
}
