// Package genstore writes realistic, deterministic AZUREAL v3 session
// stores for benchmarks: thousands of sessions with heavy-tailed lengths,
// Claude Code and Codex turns with real-looking tool traffic (shell commands
// with test logs and stack traces, file reads, edits, patches, searches, web
// fetches, todo lists), completions, hooks, plans and compactions, plus
// planted needles (Needles) for selective searches.
//
// Everything goes through the public store API (Sessions().Create,
// Events().Append, Compactions().Add), so the file is exactly what Lazuli would
// have written. The same Options give the same sessions, events and
// compactions; only the sessions' created timestamps (set by SQLite when a
// session is inserted) differ between runs.
//
// Generation runs on every core: sessions are generated in parallel, each
// from its own random stream, and written in timeline order by one
// goroutine.
package genstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Options says what to generate.
type Options struct {
	Sessions int    // sessions in the store, at least 1
	Events   int    // events of all sessions together
	Big      int    // events of the one big session; 0 for none
	Seed     uint64 // the same seed gives the same store
	// Progress, if set, is called from the writing goroutine after each
	// batch of events is stored.
	Progress func(Progress)
}

// DefaultOptions is the scale benchmark's store: 2,000 sessions, 1,000,000
// events, one session of 50,000, seed 1. It comes to about 1 GB.
func DefaultOptions() Options {
	return Options{Sessions: 2000, Events: 1_000_000, Big: 50_000, Seed: 1}
}

// Progress reports how far generation is.
type Progress struct {
	Sessions, Events int // stored so far
	TotalEvents      int
	Elapsed          time.Duration
}

// Stats describes a generated store.
type Stats struct {
	Sessions    int
	Events      int
	Compactions int
	Sittings    int   // stretches of work the sessions were written in
	BigSession  int64 // id of the big session, 0 if none
	Lengths     []int // events per session, by id (index 0 is session 1)
	Kinds       map[codec.Kind]int
	Worktrees   map[string]int // sessions per worktree
	Needles     map[string]NeedleCount
	Bytes       int64 // file size; set by Create
	PageSize    int64 // SQLite page size; set by Create
	Pages       int64 // pages in the file; set by Create
	Elapsed     time.Duration
}

// maxBatch bounds the events of one Events().Append call.
const maxBatch = 5000

// genTask is one sitting on its way from a generating worker to the writer.
type genTask struct {
	sit     sitting
	prev    <-chan struct{} // closed when the session's previous sitting is generated
	done    chan struct{}
	events  []codec.Event
	compact []pendingCompaction
}

// Generate writes a generated store into st, which should be new and empty.
func Generate(ctx context.Context, st *store.Store, opts Options) (Stats, error) {
	start := time.Now()
	plans, timeline, err := makePlan(opts)
	if err != nil {
		return Stats{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *genTask, 4*workers)
	ordered := make(chan *genTask, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for t := range work {
				select {
				case <-t.prev:
				case <-ctx.Done():
					return
				}
				generateSitting(plans, t)
				close(t.done)
			}
		})
	}
	go dispatch(ctx, timeline, work, ordered)
	stats, err := write(ctx, st, plans, ordered, opts, start)
	cancel()
	for range ordered { // let dispatch finish
	}
	wg.Wait()
	if err != nil {
		return Stats{}, err
	}
	stats.Sittings = len(timeline)
	stats.Elapsed = time.Since(start)
	return stats, nil
}

// dispatch hands the sittings to the workers and, in the same order, to
// the writer. The writer's channel bounds how far generation runs ahead.
func dispatch(ctx context.Context, timeline []sitting, work, ordered chan<- *genTask) {
	defer close(ordered)
	defer close(work)
	last := make(map[int]chan struct{})
	for _, s := range timeline {
		t := &genTask{sit: s, prev: last[s.session], done: make(chan struct{})}
		if t.prev == nil {
			closed := make(chan struct{})
			close(closed)
			t.prev = closed
		}
		last[s.session] = t.done
		if s.last {
			delete(last, s.session)
		}
		select {
		case ordered <- t:
		case <-ctx.Done():
			return
		}
		select {
		case work <- t:
		case <-ctx.Done():
			return
		}
	}
}

// generateSitting generates one sitting's events with its session's
// generator, which it creates for the first sitting (the writer drops it
// after the last).
func generateSitting(plans []sessionPlan, t *genTask) {
	p := &plans[t.sit.session]
	if p.gen == nil {
		p.gen = newSessionGen(p)
	}
	if t.sit.events > 0 {
		t.events, t.compact = p.gen.chunk(t.sit.events)
	}
}

// write stores the sittings in order as they are generated.
func write(ctx context.Context, st *store.Store, plans []sessionPlan, ordered <-chan *genTask, opts Options, start time.Time) (Stats, error) {
	stats := Stats{
		Lengths: make([]int, len(plans)), Kinds: make(map[codec.Kind]int),
		Worktrees: make(map[string]int), Needles: make(map[string]NeedleCount),
	}
	ids := make(map[int]int64, len(plans))
	for t := range ordered {
		select {
		case <-t.done:
		case <-ctx.Done():
			return stats, ctx.Err()
		}
		p := &plans[t.sit.session]
		if t.sit.first {
			sess, err := st.Sessions().Create(ctx, p.worktree, p.name)
			if err != nil {
				return stats, err
			}
			ids[p.index] = sess.ID
			stats.Sessions++
			stats.Worktrees[p.worktree]++
			if p.big {
				stats.BigSession = sess.ID
			}
		}
		id := ids[p.index]
		for evs := t.events; len(evs) > 0; {
			n := min(len(evs), maxBatch)
			stored, err := st.Events().Append(ctx, id, evs[:n], usageOf(evs[:n])...)
			if err != nil {
				return stats, err
			}
			if stored != n {
				return stats, fmt.Errorf("session %d: %d of %d events stored", id, stored, n)
			}
			for _, e := range evs[:n] {
				stats.Kinds[e.Kind]++
			}
			evs = evs[n:]
			stats.Events += n
			stats.Lengths[id-1] += n
			if opts.Progress != nil {
				opts.Progress(Progress{Sessions: stats.Sessions, Events: stats.Events, TotalEvents: opts.Events, Elapsed: time.Since(start)})
			}
		}
		for _, c := range t.compact {
			if _, err := st.Compactions().Add(ctx, id, c.afterSeq, c.summary); err != nil {
				return stats, err
			}
			stats.Compactions++
		}
		if t.sit.last {
			for k, v := range p.gen.counts {
				c := stats.Needles[k]
				c.Events += v.Events
				c.Messages += v.Messages
				stats.Needles[k] = c
			}
			p.gen = nil
		}
	}
	if err := ctx.Err(); err != nil {
		return stats, err
	}
	return stats, nil
}

// Create generates a store into a new file at path. It writes path+".tmp"
// and renames it to path only when the store is complete, so path never
// holds half a store. An existing path is an error unless overwrite is set.
func Create(ctx context.Context, path string, opts Options, overwrite bool) (Stats, error) {
	if _, err := os.Lstat(path); err == nil && !overwrite {
		return Stats{}, fmt.Errorf("%s already exists (overwrite it with -force)", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Stats{}, err
	}
	tmp := path + ".tmp"
	removeTmp := func() {
		_ = os.Remove(tmp)              // the generator's own scratch file
		_ = os.Remove(tmp + "-journal") // left by a crash mid-transaction
	}
	removeTmp()
	st, err := store.Open(ctx, tmp)
	if err != nil {
		return Stats{}, err
	}
	st.FullText().SetKeep(false) // a store as AZUREAL writes it: the baselines read the same file
	stats, err := Generate(ctx, st, opts)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fileFigures(tmp, &stats)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		removeTmp()
		return Stats{}, err
	}
	return stats, nil
}

// fileFigures reads the file's size and SQLite page size (header bytes 16
// and 17, big-endian; 1 means 65536).
func fileFigures(path string, stats *Stats) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var hdr [18]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return fmt.Errorf("read header of %s: %w", path, err)
	}
	ps := int64(hdr[16])<<8 | int64(hdr[17])
	if ps == 1 {
		ps = 65536
	}
	stats.Bytes, stats.PageSize = fi.Size(), ps
	if ps > 0 {
		stats.Pages = fi.Size() / ps
	}
	return nil
}

// usageOf gives each Complete of evs the token usage of its turn, as an
// import or a run records it (store.Usage): derived from the turn's
// duration, so the store stays deterministic. Claude turns (a cost on the
// Complete) carry their cost; Codex turns none, as the CLI reports none.
func usageOf(evs []codec.Event) []store.Usage {
	var out []store.Usage
	model := ""
	for i, e := range evs {
		switch e.Kind {
		case codec.KindInit, codec.KindModelSwitch:
			model = e.Model
		case codec.KindComplete:
			d := int64(e.DurationMS)
			u := store.Usage{Event: i, Model: model, Backend: "codex", Tokens: store.Tokens{Input: d / 10, Output: d / 40, CacheRead: d * 3}}
			if e.CostUSD > 0 {
				u.Backend, u.CostUSD, u.HasCost, u.CacheWrite = "claude", e.CostUSD, true, d/5
			} else {
				u.Reasoning = d / 120
			}
			out = append(out, u)
		}
	}
	return out
}
