package native

// This file finds the agents' own history, the transcripts Claude Code keeps
// in ~/.claude/projects and Codex in ~/.codex/sessions, and previews each
// session cheaply: from the file's stat and its first lines only.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
)

// maxNativeDepth bounds how deep the history folders are walked: Codex
// uses YYYY/MM/DD, Claude <project>/<session>/subagents.
const maxNativeDepth = 6

// ErrNoHistory reports that none of the history folders exists.
var ErrNoHistory = errors.New("no native agent history found")

// Session is one session found in an agent's history folder: a
// preview read from the head of its transcript, and the file's stat.
type Session struct {
	Agent       string    // the Source's agent: Claude, Codex, …
	ID          string    // the agent's id for it; with Agent, the key in the store's record
	ParentID    string    // a sub-agent's parent session id; "" for a main session
	Path        string    // the transcript file
	Size        int64     // bytes, at the scan
	ModTime     time.Time // at the scan
	Inode       uint64    // at the scan; 0 when the system has none
	Cwd         string    // the folder the agent ran in; "" when the head does not say
	Branch      string    // the git branch the agent recorded; "" when none
	Started     time.Time // the first timestamp in the file; zero when none
	FirstPrompt string    // the first prompt typed (else a command), as the parsers keep it, cleaned for display; "" when none in the head
	AgentName   string    // a sub-agent's id or nickname
	// Own is why the session looks like a turn that AZUREAL or Lazuli ran
	// itself (its prompt carries the injected session context, or it is a
	// compaction run), whose events are already in a store; "" otherwise.
	Own       string
	Subagents []Session // the sub-agent transcripts of a main session
	project   string    // Claude's encoded project folder name
}

// Key is the session's key in the store's record of native imports.
func (n Session) Key() store.NativeKey { return store.NativeKey{Agent: n.Agent, ID: n.ID} }

// stat is the file's stat at the scan, as a record keeps it.
func (n Session) stat() store.FileStat {
	return store.FileStat{Size: n.Size, ModTime: n.ModTime.UnixNano(), Inode: n.Inode}
}

// unchangedSince reports, from the file's stat at the scan alone, that the
// file is as it was when rec was written: same size, modification time and
// inode. A record without a stat (written before Lazuli kept one) says
// nothing.
func (n Session) unchangedSince(rec store.NativeImport) bool {
	return rec.Stat.Size >= 0 && rec.Stat == n.stat()
}

// Format is the transcript format of the session's file.
func (n Session) Format() parse.Format { return sourceOf(n.Agent).Format }

// TotalSize is the size of the session's file and its sub-agents' files.
func (n Session) TotalSize() int64 {
	size := n.Size
	for _, s := range n.Subagents {
		size += s.Size
	}
	return size
}

// Skip is a file or folder that could not be read, and why.
type Skip struct {
	Path   string
	Reason string
}

// Root is one history folder and what was found there.
type Root struct {
	Agent string
	Path  string
	Found bool   // the folder exists
	Note  string // for a missing or unreadable folder, why nothing was read
}

// ScanResult is what Scan found.
type ScanResult struct {
	Roots    []Root
	Sessions []Session // main sessions (and sub-agents whose parent was not found), oldest first
	Skipped  []Skip
}

// Options say where to look and what to keep.
type Options struct {
	// Dirs are the history folders by agent (see DefaultDirs); an agent
	// missing or "" is skipped.
	Dirs Dirs
	// Project keeps only sessions that ran in this folder or below it
	// (symbolic links resolved); "" keeps every session.
	Project string
	// PreviewCache is a file where previews are kept between scans (see
	// DefaultPreviewCache): a file whose size, modification time and
	// inode are those of its cached preview is not read. "" reads the
	// head of every file.
	PreviewCache string
}

// ClaudeHomeOf returns the Claude folder (where plans/ lives) of a Claude
// projects folder, or "" when dir is not named projects.
func ClaudeHomeOf(dir string) string {
	if filepath.Base(dir) == "projects" {
		return filepath.Dir(dir)
	}
	return ""
}

// Scan walks the history folders and previews every session in
// them. A file or folder that cannot be read is listed in Skipped and the
// rest continue; a missing folder gets a note in Roots. It fails with
// ErrNoHistory when none of the folders given exists, and with
// ctx's error when cancelled.
func Scan(ctx context.Context, opts Options) (ScanResult, error) {
	var scan ScanResult
	var found []Session
	cache := loadPreviewCache(opts.PreviewCache)
	var scanned []string
	for _, src := range Sources() {
		r := struct{ agent, dir string }{src.Agent, opts.Dirs[src.Agent]}
		if r.dir == "" {
			continue
		}
		root := Root{Agent: r.agent, Path: r.dir}
		if src.prepare != nil {
			dir, err := src.prepare(ctx, r.dir)
			if err != nil {
				root.Note = err.Error()
				scan.Roots = append(scan.Roots, root)
				continue
			}
			root.Path = dir
		}
		sessions, err := scanRoot(ctx, &root, cache, &scan.Skipped)
		if err != nil {
			return ScanResult{}, err
		}
		if src.fill != nil && root.Found {
			more, sk, err := src.fill(ctx, root.Path, sessions, func(dir string) ([]Session, error) {
				scanned = append(scanned, previewKey(r.agent, dir, "")) // its gone files leave the cache
				return scanRoot(ctx, &Root{Agent: r.agent, Path: dir}, cache, &scan.Skipped)
			})
			if err != nil {
				return ScanResult{}, err
			}
			if sk != nil {
				scan.Skipped = append(scan.Skipped, *sk)
			}
			sessions = append(sessions, more...)
		}
		scan.Roots = append(scan.Roots, root)
		scanned = append(scanned, previewKey(r.agent, r.dir, ""))
		found = append(found, sessions...)
	}
	cache.save(scanned)
	if !anyFound(scan.Roots) {
		return scan, noHistoryError(scan.Roots)
	}
	scan.Sessions = attachSubagents(found)
	if opts.Project != "" {
		scan.Sessions = inProject(scan.Sessions, opts.Project)
	}
	scan.Sessions = byStart(scan.Sessions)
	return scan, nil
}

// byStart returns sessions sorted by start, oldest first, keeping the
// order of those that started together. It sorts their indexes and moves
// each Session once: a Session is a few hundred bytes, and sorting 2,000
// of them in place moved them many times, a tenth of a no-change import.
func byStart(sessions []Session) []Session {
	starts := make([]time.Time, len(sessions))
	idx := make([]int, len(sessions))
	for i := range sessions {
		starts[i], idx[i] = sessions[i].start(), i
	}
	sort.SliceStable(idx, func(a, b int) bool { return starts[idx[a]].Before(starts[idx[b]]) })
	out := make([]Session, len(sessions))
	for i, j := range idx {
		out[i] = sessions[j]
	}
	return out
}

func anyFound(roots []Root) bool {
	for _, r := range roots {
		if r.Found {
			return true
		}
	}
	return false
}

// noHistoryError explains why no folder could be read.
func noHistoryError(roots []Root) error {
	if len(roots) == 0 {
		return fmt.Errorf("%w: no history folder given", ErrNoHistory)
	}
	notes := make([]string, len(roots))
	for i, r := range roots {
		notes[i] = r.Path + ": " + r.Note
	}
	return fmt.Errorf("%w (%s)", ErrNoHistory, strings.Join(notes, "; "))
}

// start is when the session started, or its file's mtime when unknown.
func (n Session) start() time.Time {
	if !n.Started.IsZero() {
		return n.Started
	}
	return n.ModTime
}

// scanRoot previews the transcripts under one history folder.
func scanRoot(ctx context.Context, root *Root, cache *previewCache, skipped *[]Skip) ([]Session, error) {
	fi, err := os.Stat(root.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		root.Note = "no such folder"
		return nil, nil
	case err != nil:
		root.Note = "cannot read it: " + errReason(err)
		return nil, nil
	case !fi.IsDir():
		root.Note = "not a folder"
		return nil, nil
	}
	root.Found = true
	// The walk lists the files; those not in the cache are then previewed
	// on every core (a first scan of a large history reads thousands of
	// heads), and the sessions and skips come out in the walk's order.
	type item struct {
		path string
		skip string // why a walk error skips it
		n    Session
		err  error
		read bool // to preview from the file
	}
	var items []item
	err = filepath.WalkDir(root.Path, func(path string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			items = append(items, item{path: path, skip: "cannot read it: " + errReason(err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		src := sourceOf(root.Agent)
		transcript := src.transcript(path)
		if d.IsDir() {
			if depth(root.Path, path) > maxNativeDepth {
				return fs.SkipDir
			}
			if transcript && path != root.Path {
				items = append(items, item{path: path, skip: "a folder, not a transcript file"})
			}
			return nil
		}
		if !transcript {
			return nil
		}
		if !d.Type().IsRegular() {
			items = append(items, item{path: path, skip: irregularReason(path, d.Type())})
			return nil
		}
		n, ok := cache.cached(root.Agent, root.Path, path, d)
		items = append(items, item{path: path, n: n, read: !ok})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(items); i = int(next.Add(1) - 1) {
				if it := &items[i]; it.read {
					if it.err = ctx.Err(); it.err == nil {
						it.n, it.err = previewFile(root.Agent, root.Path, it.path)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Session
	for _, it := range items {
		switch {
		case it.skip != "":
			*skipped = append(*skipped, Skip{Path: it.path, Reason: it.skip})
		case it.err != nil:
			*skipped = append(*skipped, Skip{Path: it.path, Reason: errReason(it.err)})
		default:
			if it.read {
				cache.add(root.Agent, root.Path, it.path, it.n)
			}
			out = append(out, it.n)
		}
	}
	return out, nil
}

// depth is the number of path elements of path below root.
func depth(root, path string) int {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

// errReason is an error's message without the path it repeats.
func errReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// attachSubagents moves every sub-agent into its parent's Subagents. A
// sub-agent whose parent was not found stays a session of its own.
func attachSubagents(all []Session) []Session {
	index := map[store.NativeKey]int{}
	var mains []Session
	for _, n := range all {
		if n.ParentID == "" {
			index[n.Key()] = len(mains)
			mains = append(mains, n)
		}
	}
	for _, n := range all {
		if n.ParentID == "" {
			continue
		}
		if i, ok := index[store.NativeKey{Agent: n.Agent, ID: n.ParentID}]; ok {
			mains[i].Subagents = append(mains[i].Subagents, n)
		} else {
			mains = append(mains, n)
		}
	}
	for i := range mains {
		subs := mains[i].Subagents
		sort.SliceStable(subs, func(a, b int) bool { return subs[a].start().Before(subs[b].start()) })
	}
	return mains
}
