package native

// This file imports native sessions (found by Scan) into a store: one
// Lazuli session per native session, each sub-agent transcript a session of
// its own named after its parent, and on later imports only the lines added
// since, all recorded in the store's native-import table.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
)

// ImportOptions configure Import.
type ImportOptions struct {
	// Worktree is the branch recorded in new sessions. "" means the branch
	// the agent recorded, else FallbackWorktree, else "main".
	Worktree         string
	FallbackWorktree string
	// Reimport imports a file that was rewritten or truncated after its
	// import again, as a new session; the old session is kept. Without it
	// such a file is skipped.
	Reimport bool
	// ClaudeHome is the ~/.claude folder, where Claude's plan files are.
	ClaudeHome string
	// Progress, when set, is called on the importing goroutine before and
	// after each session is read (files are parsed on every core, a few
	// sessions ahead; progress follows the sessions taken in order).
	Progress func(Progress)
	// Done, when set, is called with the results of each session (and its
	// sub-agents) once it is stored, in order, on the goroutine that
	// writes the store (the same one throughout an import).
	Done func([]Result)
	// Records, when set, is the store's record of native imports as the
	// caller just read it (store.NativeService.Imports); nil reads it.
	Records map[store.NativeKey]store.NativeImport
	// Stored, when set, is called on the goroutine that writes the store
	// after each transaction with what the store wrote in it (the rows
	// with their ids: a search index takes them from there, see
	// search.Feed).
	Stored func([]store.NativeResult)
}

// Progress says how far an import is.
type Progress struct {
	Files, TotalFiles int   // transcript files done (stored or skipped), of all
	Bytes, TotalBytes int64 // bytes read so far, of all the files' sizes at the scan
	Current           string
}

// Outcome is what an import did with one native transcript.
type Outcome string

// The outcomes of Import.
const (
	Imported  Outcome = "imported"  // a new session
	Appended  Outcome = "appended"  // new events added to its session
	Unchanged Outcome = "unchanged" // nothing new
	Skipped   Outcome = "skipped"   // not imported; Reason says why
)

// Result is the outcome for one native transcript file.
type Result struct {
	Agent, ID, ParentID, Path string
	Outcome                   Outcome
	SessionID                 int64 // the Lazuli session; 0 when skipped before one existed
	Events                    int   // events stored by this import
	Malformed                 int   // lines that were not JSON and were skipped
	Reason                    string
}

// Sessions are stored in groups of about importGroupBytes of transcript, or
// importGroupUnits sessions, each group in one transaction: a transaction
// per session costs a sync of the file each, a third of an import's time on
// a busy disk. A group is stored whole or not at all, so each session in it
// still is. 3 MiB rather than 16: with the search index fed in the same
// pass, a group's rows are held until they are indexed too, and three
// groups are in hand at once (one read, one written, one indexed). Peak
// memory of import-native on a 118 MB history: 168 MB with 16 MiB and 8
// units read ahead, 124 MB with 8 MiB and 4, 107 MB with 4 MiB and 2; on
// the 703 MB native workload, 136–142 MiB with 4 MiB and 128–131 MiB with
// 3 MiB, in the same time.
const (
	importGroupBytes = 3 << 20
	importGroupUnits = 256
)

// Import imports sessions into st, oldest first so that the newest
// ends up first in the session list. Sessions, each with its sub-agents,
// are stored in groups, one transaction each, with their records: a
// process killed at any point leaves each session wholly imported or not at
// all. A file that cannot be read is skipped with a reason and the rest
// continue. It stops between sessions when ctx is cancelled, returning the
// results of the sessions stored (those read before the cancel are stored
// first) and ctx's error, and at the first store error (busy, read-only,
// damaged). A session whose files all have the stat their records keep is
// decided there and then, without opening a file; an import where every
// session is so writes nothing, unless sub-agents stored before are not
// linked to their parent yet. Once the sessions are stored, each sub-agent
// is linked to its parent's session and call (LinkSubagents), those of
// stores imported before Lazuli linked them too.
func Import(ctx context.Context, st *store.Store, sessions []Session, opts ImportOptions) ([]Result, error) {
	results, err := importSessions(ctx, st, sessions, opts)
	if err != nil {
		return results, err
	}
	if _, err := LinkSubagents(ctx, st, grownParents(results)...); err != nil {
		return results, fmt.Errorf("link sub-agent sessions: %w", err)
	}
	return results, nil
}

// grownParents are the main sessions an import created or appended to:
// their sub-agents linked without a call are looked at again.
func grownParents(results []Result) []int64 {
	var out []int64
	for _, r := range results {
		if r.ParentID == "" && r.SessionID != 0 && (r.Outcome == Imported || r.Outcome == Appended) {
			out = append(out, r.SessionID)
		}
	}
	return out
}

// importSessions is Import without the links.
func importSessions(ctx context.Context, st *store.Store, sessions []Session, opts ImportOptions) ([]Result, error) {
	records := opts.Records
	if records == nil {
		var err error
		if records, err = st.Native().Imports(ctx); err != nil {
			return nil, err
		}
	}
	im := &nativeImporter{st: st, records: records, opts: opts}
	im.upgrade = im.inFileUpgrades(ctx, sessions)
	for _, n := range sessions {
		im.progress.TotalFiles += 1 + len(n.Subagents)
		im.progress.TotalBytes += n.TotalSize()
	}
	w := im.startWriter(ctx)
	var (
		group        []*nativeUnit
		size, writes int
	)
	sorted := sortedByStart(sessions)
	// Sessions unchanged since their records are decided here, from the
	// scan's stat: only the others go to the readers, so an import with
	// little new costs little more than the stat of each file.
	decided := make([]*nativeUnit, len(sorted))
	var toRead []Session
	for i, n := range sorted {
		if u, ok := im.unchangedUnit(n); ok {
			decided[i] = u
		} else {
			toRead = append(toRead, n)
		}
	}
	next, stop := im.readAhead(ctx, toRead)
	defer stop()
	read := 0
	for i, n := range sorted {
		if ctx.Err() != nil {
			return w.finish(group, ctx.Err()) // the sessions read so far are stored, whole
		}
		im.progress.Current = n.Path
		im.report()
		u := decided[i]
		if u == nil {
			var err error
			if u, err = next(read); err != nil {
				return w.finish(group, err) // cancelled: nothing of this session is stored
			}
			read++
		}
		im.progress.Files += 1 + len(n.Subagents)
		im.progress.Bytes += n.TotalSize()
		im.report()
		group = append(group, u)
		if len(u.batches) > 0 {
			size, writes = size+u.readBytes, writes+1
		}
		// Only what a group writes counts: units with nothing to store
		// hold nothing, and a transaction more is a sync of the file more.
		if size >= importGroupBytes || writes >= importGroupUnits {
			if !w.hand(group) {
				return w.finish(nil, nil)
			}
			group, size, writes = nil, 0, 0
		}
	}
	return w.finish(group, nil)
}

// unchangedUnit is the unit of n when the scan's stat of n and of each of
// its sub-agents is the one their records keep: nothing to read or store.
func (im *nativeImporter) unchangedUnit(n Session) (*nativeUnit, bool) {
	files := append([]Session{n}, n.Subagents...)
	u := &nativeUnit{results: make([]Result, len(files))}
	for i, f := range files {
		rec, ok := im.records[f.Key()]
		if !ok || !f.unchangedSince(rec) || rec.ParentID != f.ParentID || im.upgrade[f.Key()] {
			return nil, false
		}
		u.results[i] = Result{Agent: f.Agent, ID: f.ID, ParentID: f.ParentID, Path: f.Path, Outcome: Unchanged, SessionID: rec.SessionID}
	}
	return u, true
}

// sortedByStart returns a copy of sessions, oldest first.
func sortedByStart(sessions []Session) []Session {
	out := append([]Session(nil), sessions...)
	for i := 1; i < len(out); i++ { // insertion sort: stable, and the input is usually sorted
		for j := i; j > 0 && out[j].start().Before(out[j-1].start()); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// nativeImporter carries an import's state.
type nativeImporter struct {
	st       *store.Store
	records  map[store.NativeKey]store.NativeImport
	opts     ImportOptions
	progress Progress
	// upgrade are main sessions read again for the sub-agents their
	// files hold (inFileUpgrades); set before the readers start.
	upgrade map[store.NativeKey]bool
}

// nativeUnit is a session and its sub-agents, read and ready to store.
type nativeUnit struct {
	results   []Result
	batches   []store.NativeBatch
	owners    []int // index in results of each batch
	readBytes int   // bytes of transcript read for its batches
	stored    bool  // its batches are in the store (or it had none)
}

// unit reads a session and its sub-agents. The error is ctx's. It runs on
// readAhead's goroutines: it reads im but never changes it.
func (im *nativeImporter) unit(ctx context.Context, n Session) (*nativeUnit, error) {
	worktree := im.worktree(n)
	files := append([]Session{n}, n.Subagents...)
	u := &nativeUnit{results: make([]Result, len(files))}
	for i, f := range files {
		name := func() string { // only a new session needs it
			if i > 0 {
				return SubagentTitle(n.Title(), f)
			}
			return n.Title()
		}
		b, r, subs, err := im.prepare(ctx, f, worktree, name)
		if err != nil {
			return nil, err // cancelled: nothing of the unit is stored
		}
		u.results[i] = r
		if b != nil {
			u.batches = append(u.batches, *b)
			u.owners = append(u.owners, i)
			u.readBytes += int(b.Bytes)
			if b.Prev != nil && !b.Reimport {
				u.readBytes -= int(b.Prev.Bytes)
			}
		}
		u.addInFile(subs)
	}
	// Sub-agents first: the list shows the session with the newest event
	// first, so the parent comes out on top with its sub-agents below.
	slices.Reverse(u.batches)
	slices.Reverse(u.owners)
	// Encoded here, on every core, the batches leave the single writer only
	// the writing.
	for i := range u.batches {
		_ = im.st.Native().Encode(&u.batches[i]) // an error: Import fails on the batch, as it always did
	}
	return u, nil
}

// addInFile adds the sub-agents a file holds to u: their batches after
// those of the file.
func (u *nativeUnit) addInFile(subs inFileRead) {
	for i, b := range subs.batches {
		u.batches = append(u.batches, b)
		u.owners = append(u.owners, len(u.results)+subs.owners[i])
	}
	u.results = append(u.results, subs.results...)
}

// store writes a group of units in one transaction. When another program
// imported one of them meanwhile, the units are stored one by one instead,
// and those it imported are reported skipped.
func (im *nativeImporter) store(ctx context.Context, group []*nativeUnit) error {
	var batches []store.NativeBatch
	for _, u := range group {
		batches = append(batches, u.batches...)
	}
	ns := im.st.Native()
	if im.opts.Stored == nil { // nothing takes the rows (no search index to feed)
		ns = ns.WithoutRows()
	}
	stored, err := ns.Import(ctx, batches)
	switch {
	case errors.Is(err, store.ErrNativeConflict) && len(group) > 1:
		for _, u := range group {
			if err := im.store(ctx, []*nativeUnit{u}); err != nil {
				return err
			}
		}
		return nil
	case errors.Is(err, store.ErrNativeConflict):
		u := group[0]
		for _, i := range u.owners {
			r := &u.results[i]
			r.Outcome, r.Reason = Skipped, "another program imported it meanwhile; import again to append what is new"
			r.Events = 0
		}
		u.stored = true
		return nil
	case ctx.Err() != nil:
		return ctx.Err() // nothing of the group was stored
	case err != nil:
		return err
	}
	if im.opts.Stored != nil {
		im.opts.Stored(stored)
	}
	k := 0
	for _, u := range group {
		for _, i := range u.owners {
			r := &u.results[i]
			r.SessionID, r.Events = stored[k].SessionID, stored[k].Events
			switch {
			case stored[k].Created:
				r.Outcome = Imported
			case r.Events > 0:
				r.Outcome = Appended
			default:
				r.Outcome = Unchanged
			}
			k++
		}
		u.stored = true
	}
	return nil
}

// prepare reads one file and returns the batch to store for it (nil when
// there is nothing to store), its result so far, and those of the
// sub-agents it holds (inFileBatches). The error is ctx's.
func (im *nativeImporter) prepare(ctx context.Context, n Session, worktree string, name func() string) (*store.NativeBatch, Result, inFileRead, error) {
	var none inFileRead
	r := Result{Agent: n.Agent, ID: n.ID, ParentID: n.ParentID, Path: n.Path}
	var prev *store.NativeImport
	if rec, ok := im.records[n.Key()]; ok {
		prev = &rec
		r.SessionID = rec.SessionID
		if n.unchangedSince(rec) && !im.upgrade[n.Key()] { // decided without opening the file
			r.Outcome = Unchanged
			return reparented(rec, n.ParentID), r, none, nil
		}
		if st, ok := upToDate(n, rec); ok && !im.upgrade[n.Key()] {
			// Nothing new, but the stat moved (touched, or the record
			// predates stats): record the new stat so that the next
			// import decides from it alone.
			r.Outcome = Unchanged
			if b := refresh(rec, st); b != nil {
				b.ParentID = n.ParentID
				return b, r, none, nil
			}
			return reparented(rec, n.ParentID), r, none, nil
		}
	}
	var resume []byte
	if prev != nil {
		// No resume (none kept, or the store unreadable now) reads the
		// whole file; a store error shows again when the batch is stored.
		resume, _ = im.st.Native().Resume(ctx, prev.NativeKey, prev.Bytes, prev.Checksum)
	}
	read, err := readNative(ctx, n, prev, resume, parse.Options{ClaudeHome: im.opts.ClaudeHome})
	reimport := false
	if errors.Is(err, errNativeChanged) && im.opts.Reimport {
		reimport = true
		read, err = readNative(ctx, n, nil, nil, parse.Options{ClaudeHome: im.opts.ClaudeHome})
	}
	switch {
	case ctx.Err() != nil:
		return nil, r, none, ctx.Err()
	case errors.Is(err, errNativeChanged):
		r.Outcome, r.Reason = Skipped, fmt.Sprintf("%v into S%d; left as it is", err, prev.SessionID)
		return nil, r, none, nil
	case err != nil:
		r.Outcome, r.Reason, r.SessionID = Skipped, readReason(err), 0
		return nil, r, none, nil
	}
	r.Malformed = read.stats.Malformed
	if (prev == nil || reimport) && len(read.events) == 0 {
		r.Outcome, r.Reason, r.SessionID = Skipped, "it holds no conversation (no prompt, reply or tool call)", 0
		return nil, r, none, nil
	}
	if prev != nil && !reimport && read.bytes == prev.Bytes {
		r.Outcome = Unchanged // only a line still being written
		b := refresh(*prev, read.stat)
		if b == nil && im.upgrade[n.Key()] {
			p := *prev // read again for its sub-agents: its record says so now
			b = &store.NativeBatch{Key: p.NativeKey, ParentID: p.ParentID, Path: p.Path,
				Bytes: p.Bytes, Lines: p.Lines, Checksum: p.Checksum, Stat: p.Stat, Prev: &p}
		}
		if b != nil && resume == nil {
			b.Resume = read.resume // a record from before resumes were kept gets one
		}
		return b, r, im.inFileBatches(n, read, false, worktree, n.Title()), nil
	}
	b := &store.NativeBatch{
		Key: n.Key(), ParentID: n.ParentID, Path: n.Path,
		Bytes: read.bytes, Lines: read.lines, Checksum: read.checksum, Stat: read.stat, Events: read.events, Usage: read.usage,
		Prev: prev, Reimport: reimport, Resume: read.resume,
	}
	if prev == nil || reimport {
		b.Worktree, b.Name, b.Created = worktree, name(), n.start().UTC().Format(store.TimeFormat)
	}
	return b, r, im.inFileBatches(n, read, reimport, worktree, n.Title()), nil
}

// upToDate reports, from the file's size and checksum alone, that nothing
// was added to n since rec, with the file's stat.
func upToDate(n Session, rec store.NativeImport) (store.FileStat, bool) {
	f, err := os.Open(n.Path)
	if err != nil {
		return store.FileStat{}, false // reading it reports why
	}
	defer f.Close()
	st, err := checkRecord(f, rec)
	return st.stat, err == nil && st.size == rec.Bytes
}

// refresh is a batch that stores nothing but rec with the file's new stat;
// nil when the stat is what rec has.
func refresh(rec store.NativeImport, st store.FileStat) *store.NativeBatch {
	if rec.Stat == st {
		return nil
	}
	p := rec
	return &store.NativeBatch{
		Key: rec.NativeKey, ParentID: rec.ParentID, Path: rec.Path,
		Bytes: rec.Bytes, Lines: rec.Lines, Checksum: rec.Checksum, Stat: st, Prev: &p,
	}
}

// reparented is a batch that stores nothing but rec with parent as its
// parent's id; nil when rec has it. A sub-agent imported as a main
// session (OpenCode's child sessions, before Lazuli read their parent)
// gets its parent so, and LinkSubagents then links it.
func reparented(rec store.NativeImport, parent string) *store.NativeBatch {
	if rec.ParentID == parent {
		return nil
	}
	p := rec
	return &store.NativeBatch{
		Key: rec.NativeKey, ParentID: parent, Path: rec.Path,
		Bytes: rec.Bytes, Lines: rec.Lines, Checksum: rec.Checksum, Stat: rec.Stat, Prev: &p,
	}
}

// readReason is why a file could not be imported, for people.
func readReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return "cannot read it: " + pe.Err.Error()
	}
	return err.Error()
}

// report calls the Progress callback.
func (im *nativeImporter) report() {
	if im.opts.Progress != nil {
		im.opts.Progress(im.progress)
	}
}

// worktree is the branch recorded in n's new sessions.
func (im *nativeImporter) worktree(n Session) string {
	for _, b := range []string{im.opts.Worktree, n.Branch, im.opts.FallbackWorktree} {
		if b != "" {
			return b
		}
	}
	return "main"
}

// Title is the name an imported session gets: the first line of its first
// prompt, shortened, or when it has none the agent and the date (for a
// sub-agent, its id).
func (n Session) Title() string {
	if t := agents.PromptName(n.FirstPrompt); t != "" {
		return t
	}
	if n.ParentID != "" {
		return "agent " + n.AgentName
	}
	return n.Agent + " " + n.start().UTC().Format("2006-01-02 15:04")
}

// SubagentTitle is the name of a sub-agent's session: its parent's name
// and what the sub-agent was asked.
func SubagentTitle(parent string, sub Session) string {
	return agents.SubagentName(parent, sub.Title())
}
