package recall

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/lazuli-app/lazuli/chronicle"
)

// TriedArgs are what_was_tried's arguments.
type TriedArgs struct {
	Topic string `json:"topic" jsonschema:"a tool, command, file or word (\"go test\", \"parser.go\"); the findings that mention it"`
	Paging
}

// findings caches the improve report's facts while the stores are
// unchanged (their versions): gathering reads hundreds of turns.
type findings struct {
	mu       sync.Mutex
	versions string
	facts    *chronicle.Facts
	sources  []*source // the sources Gather saw, by its Cite.Store
}

// WhatWasTried returns the chronicle's improve findings (failing
// commands, tool errors, calls retried unchanged, files edited back and
// forth, the user's corrections, interrupted turns) that mention the
// topic, each with the events it is drawn from.
func (h *History) WhatWasTried(ctx context.Context, a TriedArgs) (Answer, error) {
	return paged(ctx, h, ToolTried, a, a.Paging, h.renderTried)
}

func (h *History) renderTried(ctx context.Context, a TriedArgs) (string, error) {
	topic := strings.ToLower(strings.TrimSpace(a.Topic))
	if topic == "" {
		return "", badArg("topic is empty: name a tool, command, file or word")
	}
	facts, srcs, err := h.improveFacts(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# What was tried: %s\n\n", mdCell(a.Topic))
	n := 0
	for _, f := range facts.Findings {
		if !strings.Contains(strings.ToLower(f.Subject), topic) && !strings.Contains(strings.ToLower(f.Text), topic) {
			continue
		}
		n++
		fmt.Fprintf(&b, "- **%s** (%d×): %s\n", f.Kind, f.Count, mdCell(f.Text))
		for _, c := range f.Cites {
			src := srcs[c.Store]
			fmt.Fprintf(&b, "  - %s [open](%s)\n", h.cite(src, c.Session, c.Seq), link(src, c.Session, c.Seq))
		}
	}
	if n == 0 {
		fmt.Fprintf(&b, "No finding mentions it (%d findings over %d sessions). Try search_sessions for the word.\n",
			len(facts.Findings), facts.Sessions)
	}
	for _, s := range h.sources {
		if s.insight == nil {
			b.WriteString("\nNote: " + noInsight(s).Error() + "\n")
		}
	}
	return b.String(), nil
}

// improveFacts gathers (or returns the cached) improve report facts of
// the sources with an insight index.
func (h *History) improveFacts(ctx context.Context) (*chronicle.Facts, []*source, error) {
	var versions strings.Builder
	var srcs []*source
	var cs []chronicle.Source
	for _, s := range h.sources {
		if s.insight == nil {
			continue
		}
		v, err := s.st.Scan().Version(ctx)
		if err != nil {
			return nil, nil, err
		}
		versions.WriteString(v + "\x00")
		srcs = append(srcs, s)
		cs = append(cs, chronicle.Source{Store: s.st, Index: s.insight})
	}
	if len(cs) == 0 {
		return nil, nil, noInsight(h.sources[0])
	}
	h.tried.mu.Lock()
	defer h.tried.mu.Unlock()
	if h.tried.facts != nil && h.tried.versions == versions.String() {
		return h.tried.facts, h.tried.sources, nil
	}
	facts, err := chronicle.Gather(ctx, cs, chronicle.Improve, chronicle.Options{Window: chronicle.Window{Label: "all"}})
	if err != nil {
		return nil, nil, err
	}
	h.tried.versions, h.tried.facts, h.tried.sources = versions.String(), facts, srcs
	return facts, srcs, nil
}
