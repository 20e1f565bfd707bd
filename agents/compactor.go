package agents

import (
	"context"
	"errors"
	"sync"

	"github.com/lazuli-app/lazuli/store"
)

// CompactJob asks the Compactor to compact one session.
type CompactJob struct {
	StorePath string
	SessionID int64
	Reason    string // "mid-turn", "after turn", "on load" or "manual"
	// AutoContinue marks a turn stopped for compaction: once compacted, the
	// owner sends the hidden auto-continue prompt (spec §7.5).
	AutoContinue bool
	// Manual jobs run even if the session failed to compact before.
	Manual bool
}

// CompactNotice tells the Compactor's owner what a job is doing.
type CompactNotice struct {
	Job     CompactJob
	Started bool // the job starts; Outcome and Err are not set yet
	Agent   string
	Outcome CompactOutcome
	Err     error
}

type compactKey struct {
	path string
	id   int64
}

// Compactor is the background compaction worker: it runs queued jobs one
// at a time, so no session is ever compacted twice at once, until the
// context given to Run ends.
type Compactor struct {
	open    func(path string) (*store.Store, error)
	options func(CompactJob) CompactOptions
	notify  func(CompactNotice)

	mu     sync.Mutex
	queue  []CompactJob
	active map[compactKey]bool // queued or running
	failed map[compactKey]int64
	wake   chan struct{}
}

// NewCompactor returns a worker that opens stores with open, takes each
// job's options from options, and reports to notify (from the worker's
// goroutine).
func NewCompactor(open func(path string) (*store.Store, error), options func(CompactJob) CompactOptions,
	notify func(CompactNotice)) *Compactor {
	return &Compactor{open: open, options: options, notify: notify,
		active: map[compactKey]bool{}, failed: map[compactKey]int64{}, wake: make(chan struct{}, 1)}
}

// Request queues job unless that session is queued or running already, or
// (for automatic jobs) it could not be compacted at its current size
// before. It reports whether the job was queued.
func (c *Compactor) Request(job CompactJob, currentChars int64) bool {
	k := compactKey{job.StorePath, job.SessionID}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active[k] {
		if job.AutoContinue {
			for i := range c.queue {
				if c.queue[i].StorePath == k.path && c.queue[i].SessionID == k.id {
					c.queue[i].AutoContinue = true
				}
			}
		}
		return false
	}
	if chars, ok := c.failed[k]; ok && !job.Manual && chars == currentChars {
		return false
	}
	c.active[k] = true
	c.queue = append(c.queue, job)
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

// Busy reports whether the session is queued or being compacted.
func (c *Compactor) Busy(storePath string, sessionID int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.active[compactKey{storePath, sessionID}]
}

// Run works through the queue until ctx ends, and returns ctx's error.
func (c *Compactor) Run(ctx context.Context) error {
	for {
		c.mu.Lock()
		var job CompactJob
		have := len(c.queue) > 0
		if have {
			job = c.queue[0]
			c.queue = c.queue[1:]
		}
		c.mu.Unlock()
		if !have {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-c.wake:
				continue
			}
		}
		c.run(ctx, job)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// run does one job.
func (c *Compactor) run(ctx context.Context, job CompactJob) {
	k := compactKey{job.StorePath, job.SessionID}
	n := CompactNotice{Job: job}
	defer func() {
		c.mu.Lock()
		delete(c.active, k)
		c.mu.Unlock()
		c.notify(n)
	}()
	st, err := c.open(job.StorePath)
	if err != nil {
		n.Err = err
		return
	}
	opts := c.options(job)
	userAttempt := opts.OnAttempt
	opts.OnAttempt = func(agent string) {
		if userAttempt != nil {
			userAttempt(agent)
		}
		c.notify(CompactNotice{Job: job, Started: true, Agent: agent})
	}
	n.Outcome, n.Err = CompactSession(ctx, st, job.SessionID, opts)
	c.mu.Lock()
	if n.Err != nil && !errors.Is(n.Err, context.Canceled) {
		chars, _ := st.Compactions().CharsSince(context.WithoutCancel(ctx), job.SessionID)
		c.failed[k] = chars
	} else {
		delete(c.failed, k)
	}
	c.mu.Unlock()
}
