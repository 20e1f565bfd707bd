package recall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/chronicle"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// ErrBadArgument reports a call whose arguments cannot be answered: an
// unknown session, a bad date, a cursor of another call.
var ErrBadArgument = errors.New("bad argument")

// badArg wraps ErrBadArgument with a sentence for the agent.
func badArg(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadArgument, fmt.Sprintf(format, a...))
}

// History is the read-only view of one project's stores that the tools
// answer from.
type History struct {
	sources []*source
	indexed chan struct{} // closed once the indexes are open
	tried   findings
	// Now is the clock "since" is read against; time.Now when nil.
	Now func() time.Time
}

// source is one store with the indexes that existed when it was opened.
type source struct {
	n       int // 1-based, the @N of citations
	st      *store.Store
	search  *search.Index  // nil: searched without one (search.Scan)
	insight *insight.Index // nil: usage, files, refs and findings unavailable
}

// Open opens the stores at paths read-only, with their search and insight
// indexes when those already exist (they are never created or updated
// here). A store that cannot be opened is an error.
func Open(ctx context.Context, paths []string) (*History, error) {
	if len(paths) == 0 {
		return nil, errors.New("no store to serve")
	}
	h := &History{indexed: make(chan struct{})}
	for i, p := range paths {
		st, err := store.OpenReadOnly(ctx, p)
		if err != nil {
			close(h.indexed)
			_ = h.Close() // the open error is the one to report
			return nil, err
		}
		h.sources = append(h.sources, &source{n: i + 1, st: st})
	}
	// Opening an index another process has open (a window) checks it
	// first, which takes seconds on a large store: the server answers the
	// client's handshake meanwhile, and the tools wait (waitIndexes).
	go func() {
		defer close(h.indexed)
		for _, src := range h.sources {
			src.openIndexes(context.WithoutCancel(ctx))
		}
	}()
	return h, nil
}

// openIndexes opens the source's search and insight indexes when they
// exist; one that cannot be opened is left out.
func (src *source) openIndexes(ctx context.Context) {
	if exists(search.IndexPath(src.st.Path())) {
		if x, err := search.Open(ctx, src.st); err == nil {
			src.search = x
		}
	}
	if exists(insight.IndexPath(src.st.Path())) {
		if x, err := insight.Open(ctx, src.st); err == nil {
			src.insight = x
		}
	}
}

// waitIndexes waits until Open has opened the indexes (or ctx ends).
func (h *History) waitIndexes(ctx context.Context) error {
	select {
	case <-h.indexed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// exists reports whether the index path names a file.
func exists(path string, err error) bool {
	if err != nil {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// Close closes the indexes (once they are open) and the stores.
func (h *History) Close() error {
	<-h.indexed
	var errs []error
	for _, s := range h.sources {
		if s.search != nil {
			errs = append(errs, s.search.Close())
		}
		if s.insight != nil {
			errs = append(errs, s.insight.Close())
		}
		errs = append(errs, s.st.Close())
	}
	return errors.Join(errs...)
}

// Stores lists the served stores' paths, @1 first.
func (h *History) Stores() []string {
	out := make([]string, len(h.sources))
	for i, s := range h.sources {
		out[i] = s.st.Path()
	}
	return out
}

func (h *History) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// sessionRef is a session named by an agent: S12, 12, S12@2.
type sessionRef struct {
	src *source
	id  int64
}

// cite is the session's citation, with event seq when positive.
func (h *History) cite(src *source, session, seq int64) string {
	c := chronicle.Cite{Store: src.n - 1, Session: session, Seq: seq}
	return c.String()
}

// link is the lazuli:// link of the session at seq.
func link(src *source, session, seq int64) string {
	return chronicle.Link(src.st.Path(), session, seq)
}

// parseSession reads S12, 12, S12@2 or [S12#3@2] (the event is ignored).
func (h *History) parseSession(s string) (sessionRef, error) {
	t := strings.Trim(strings.TrimSpace(s), "[]")
	storeN := 1
	if i := strings.IndexByte(t, '@'); i >= 0 {
		n, err := strconv.Atoi(t[i+1:])
		if err != nil || n < 1 || n > len(h.sources) {
			return sessionRef{}, badArg("session %q: no store @%s (this server has %d)", s, t[i+1:], len(h.sources))
		}
		storeN, t = n, t[:i]
	}
	if i := strings.IndexByte(t, '#'); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t, "S"), "s")
	id, err := strconv.ParseInt(t, 10, 64)
	if err != nil || id <= 0 {
		return sessionRef{}, badArg("session %q: want S12 (or S12@2 for the second store)", s)
	}
	return sessionRef{h.sources[storeN-1], id}, nil
}

// sessionURI is the MCP resource of a session: lazuli://session/<store>/<id>.
func sessionURI(src *source, id int64) string {
	return fmt.Sprintf("lazuli://session/%d/%d", src.n, id)
}

// ParseSessionURI reads a resource URI of SessionURI's form into the
// session argument read_session takes ("S12@2").
func ParseSessionURI(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, "lazuli://session/")
	if !ok {
		return "", badArg("resource %q: want lazuli://session/<store>/<id>", uri)
	}
	n, id, ok := strings.Cut(rest, "/")
	if !ok {
		return "", badArg("resource %q: want lazuli://session/<store>/<id>", uri)
	}
	return "S" + id + "@" + n, nil
}

// SessionResource is one session as an MCP resource.
type SessionResource struct {
	URI, Name, Description string
}

// SessionResources lists every session of the stores as a resource,
// lazuli://session/<store>/<id> (store: its @N, from 1).
func (h *History) SessionResources(ctx context.Context) ([]SessionResource, error) {
	var out []SessionResource
	for _, src := range h.sources {
		ss, err := src.st.Scan().Sessions(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			out = append(out, SessionResource{URI: sessionURI(src, s.ID), Name: h.cite(src, s.ID, 0) + " " + s.DisplayName(),
				Description: fmt.Sprintf("session %s of worktree %s, created %s", h.cite(src, s.ID, 0), s.Worktree, s.Created)})
		}
	}
	return out, nil
}
