package native

// The import's two goroutines beside the caller's: the read-ahead, which
// parses the next sessions on every core, and the group writer, which
// stores each group in its own transaction while the next one is read.

import (
	"context"
	"runtime"
	"sync"
)

// groupWriter stores an import's groups, in order, on a goroutine of its
// own while the importing goroutine reads the next group: reading (parsing,
// on every core) and writing overlap, and there is work for two cores even
// when each stage alone would keep one busy.
type groupWriter struct {
	groups  chan []*nativeUnit // unbuffered: one group is written while the next is read
	failed  chan struct{}      // closed when a group could not be stored
	done    chan struct{}      // closed when the writer has stopped
	err     error              // the store's error; read after done
	results []Result           // of the sessions stored; read after done
}

// startWriter starts im's group writer. A group handed to it was read
// before any cancel of ctx, so it is stored even when ctx ends meanwhile
// (a group is small enough to write in a moment).
func (im *nativeImporter) startWriter(ctx context.Context) *groupWriter {
	w := &groupWriter{groups: make(chan []*nativeUnit), failed: make(chan struct{}), done: make(chan struct{})}
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer close(w.done)
		for group := range w.groups {
			if w.err != nil {
				continue // the store failed: nothing more is written
			}
			w.err = im.store(ctx, group)
			for _, u := range group {
				if u.stored {
					w.results = append(w.results, u.results...)
					if im.opts.Done != nil {
						im.opts.Done(u.results)
					}
				}
			}
			if w.err != nil {
				close(w.failed)
			}
		}
	}()
	return w
}

// hand gives group to the writer, waiting while it writes the one before;
// false once a group could not be stored (group is then not written).
func (w *groupWriter) hand(group []*nativeUnit) bool {
	if len(group) == 0 {
		return true
	}
	select {
	case w.groups <- group:
		return true
	case <-w.failed:
		return false
	}
}

// finish hands over the last group, waits for the writer, and returns the
// results of the sessions stored with the store's error, else cause.
func (w *groupWriter) finish(last []*nativeUnit, cause error) ([]Result, error) {
	w.hand(last)
	close(w.groups)
	<-w.done
	if w.err != nil {
		return w.results, w.err
	}
	return w.results, cause
}

// readAheadUnits bounds how many sessions are read ahead of the one being
// stored, and so the memory their events hold.
const readAheadUnits = 2

// readAhead reads units (parses their files) on up to GOMAXPROCS
// goroutines, at most readAheadUnits ahead of the caller, who takes them
// in order with next(i) and hands them, a group at a time, to the
// groupWriter: parsing, most of an import's work, runs on every core
// while the store is written in order. stop ends the reading and waits
// for it.
func (im *nativeImporter) readAhead(ctx context.Context, units []Session) (next func(int) (*nativeUnit, error), stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	type slot struct {
		u   *nativeUnit
		err error
	}
	slots := make([]chan slot, len(units))
	for i := range slots {
		slots[i] = make(chan slot, 1)
	}
	credit := make(chan struct{}, readAheadUnits)
	for range readAheadUnits {
		credit <- struct{}{}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(units))) {
		wg.Go(func() {
			for i := range jobs {
				u, err := im.unit(ctx, units[i])
				slots[i] <- slot{u, err}
			}
		})
	}
	wg.Go(func() {
		defer close(jobs)
		for i := range units {
			select {
			case <-credit:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	})
	next = func(i int) (*nativeUnit, error) {
		select {
		case s := <-slots[i]:
			credit <- struct{}{} // never blocks: this unit's credit comes back
			return s.u, s.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return next, func() { cancel(); wg.Wait() }
}
