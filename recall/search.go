package recall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/search"
)

// SearchArgs are search_sessions' arguments.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"the words every hit must contain, anywhere, ignoring case (\"flaky test\"); a phrase in double quotes must occur as typed"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many hits (1 to 200; default 20)"`
	Since string `json:"since,omitempty" jsonschema:"only sessions created on or after YYYY-MM-DD, or in the last Nd days (7d)"`
	Agent string `json:"agent,omitempty" jsonschema:"only sessions of this agent: claude, codex, gemini, qwen, opencode, pi or copilot (as their usage says)"`
	Paging
}

// Search hit limits.
const (
	defaultHits = 20
	maxHits     = 200
	searchPages = 4 // pages of hits read while since or agent filter them
)

// SearchSessions finds the events whose text holds every word of the
// query, newest first: for each, its session and event, the worktree,
// when, a snippet and a lazuli:// link.
func (h *History) SearchSessions(ctx context.Context, a SearchArgs) (Answer, error) {
	return paged(ctx, h, ToolSearch, a, a.Paging, h.renderSearch)
}

func (h *History) renderSearch(ctx context.Context, a SearchArgs) (string, error) {
	limit := a.Limit
	switch {
	case limit == 0:
		limit = defaultHits
	case limit < 0 || limit > maxHits:
		return "", badArg("limit %d: want 1 to %d", limit, maxHits)
	}
	since, err := h.since(a.Since)
	if err != nil {
		return "", err
	}
	agent := strings.ToLower(strings.TrimSpace(a.Agent))
	if names := agents.BackendNames(); agent != "" && !slices.Contains(names, agent) {
		return "", badArg("agent %q: want %s", a.Agent, display.OrList(names))
	}
	sources := make([]search.Source, len(h.sources))
	for i, s := range h.sources {
		sources[i] = search.Source{Store: s.st, Index: s.search}
	}
	ran := agentsOf{h: h}
	var hits []search.Hit
	var notes []string
	more := false
	for p := 0; p < searchPages && len(hits) < limit; p++ {
		opt := search.Options{Limit: limit, Offset: p * limit}
		res, err := search.Stores(ctx, sources, a.Query, opt)
		if errors.Is(err, search.ErrEmptyQuery) || errors.Is(err, search.ErrShortQuery) || errors.Is(err, search.ErrLongQuery) {
			return "", badArg("%v", err)
		}
		if err != nil {
			return "", err
		}
		if res.Note != "" && p == 0 {
			notes = append(notes, res.Note)
		}
		for _, hit := range res.Hits {
			if since != "" && hit.Time < since {
				continue
			}
			if agent != "" && !ran.is(ctx, hit, agent) {
				continue
			}
			if len(hits) == limit {
				more = true
				break
			}
			hits = append(hits, hit)
		}
		more = more || res.More
		if !res.More || (since == "" && agent == "") {
			break
		}
	}
	for _, s := range h.sources {
		if s.search == nil {
			notes = append(notes, fmt.Sprintf("%s has no search index yet: it was read in full.", s.st.Path()))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Search: %s\n\n", mdCell(a.Query))
	if len(hits) == 0 {
		b.WriteString("No hits.\n")
	}
	for _, hit := range hits {
		src := h.bySource(hit.StorePath)
		fmt.Fprintf(&b, "- %s %s · %s · %s · %s · [open](%s)\n  %s\n", h.cite(src, hit.SessionID, hit.Seq),
			mdCell(hit.DisplayName), mdCell(hit.Worktree), hit.Time, hit.Kind, link(src, hit.SessionID, hit.Seq), mdCell(hit.Snippet))
	}
	if more {
		fmt.Fprintf(&b, "\nMore hits follow: narrow the query, or raise limit (at most %d).\n", maxHits)
	}
	for _, n := range notes {
		b.WriteString("\nNote: " + n + "\n")
	}
	b.WriteString("\nRead a hit's session with read_session (session S12, from_event 340 for [S12#340]).\n")
	return b.String(), nil
}

// bySource returns the source of the store at path (the first when none
// matches, which search never returns).
func (h *History) bySource(path string) *source {
	for _, s := range h.sources {
		if s.st.Path() == path {
			return s
		}
	}
	return h.sources[0]
}

// agentsOf caches, for one call, the agents (usage backends) of sessions.
type agentsOf struct {
	h    *History
	seen map[string]map[string]bool
}

// is reports whether the hit's session ran agent: its usage rows name that
// backend. A session without usage, or a store without an insight index,
// matches no agent.
func (ag *agentsOf) is(ctx context.Context, hit search.Hit, agent string) bool {
	key := fmt.Sprintf("%s\x00%d", hit.StorePath, hit.SessionID)
	if ag.seen == nil {
		ag.seen = map[string]map[string]bool{}
	}
	set, ok := ag.seen[key]
	if !ok {
		set = map[string]bool{}
		if src := ag.h.bySource(hit.StorePath); src.insight != nil {
			if rows, err := src.insight.Usage().Stats(ctx, insightBackend(hit.SessionID)); err == nil {
				for _, r := range rows {
					set[strings.ToLower(r.Key)] = true
				}
			}
		}
		ag.seen[key] = set
	}
	return set[agent]
}
