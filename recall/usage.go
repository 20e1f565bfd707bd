package recall

import (
	"context"
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/insight"
)

// UsageArgs are usage's arguments.
type UsageArgs struct {
	By    string `json:"by" jsonschema:"how to group the rows: total, day, model, backend, worktree or session"`
	Since string `json:"since,omitempty" jsonschema:"only from YYYY-MM-DD, or the last Nd days (7d)"`
	Paging
}

// RefsArgs are session_refs' arguments.
type RefsArgs struct {
	Session string `json:"session,omitempty" jsonschema:"the session (S12, or S12@2 for the second store); all sessions when empty"`
	Paging
}

// maxRefs bounds the refs session_refs lists for a store: the newest.
const maxRefs = 500

func insightBackend(session int64) insight.StatsQuery {
	return insight.StatsQuery{By: insight.ByBackend, Session: session}
}

// Usage returns the `lazuli stats` rows: sessions, turns, tokens and cost
// grouped by a.By.
func (h *History) Usage(ctx context.Context, a UsageArgs) (Answer, error) {
	return paged(ctx, h, ToolUsage, a, a.Paging, h.renderUsage)
}

func (h *History) renderUsage(ctx context.Context, a UsageArgs) (string, error) {
	by := insight.Grouping(strings.TrimSpace(a.By))
	if by == "total" {
		by = insight.ByTotal
	}
	switch by {
	case insight.ByTotal, insight.ByDay, insight.ByModel, insight.ByBackend, insight.ByWorktree, insight.BySession:
	default:
		return "", badArg("by %q: want total, day, model, backend, worktree or session", a.By)
	}
	since, err := h.since(a.Since)
	if err != nil {
		return "", err
	}
	var lists [][]insight.Totals
	var notes []string
	for _, s := range h.sources {
		if s.insight == nil {
			notes = append(notes, noInsight(s).Error())
			continue
		}
		rows, err := s.insight.Usage().Stats(ctx, insight.StatsQuery{By: by, Since: since})
		if err != nil {
			return "", err
		}
		if by == insight.BySession {
			for i := range rows {
				rows[i].Key = h.cite(s, sessionNumber(rows[i].Key), 0)
			}
		}
		lists = append(lists, rows)
	}
	rows := insight.MergeTotals(lists...)
	var b strings.Builder
	fmt.Fprintf(&b, "# Usage by %s\n\n| %s | sessions | turns | input | output | cache read | cache write | reasoning | cost USD |\n|---|---|---|---|---|---|---|---|---|\n",
		orTotal(by), orTotal(by))
	for _, r := range rows {
		cost := fmt.Sprintf("%.4f", r.CostUSD)
		if r.CostEstimated {
			cost += " (estimated)"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %s |\n", mdCell(r.Key), r.Sessions, r.Turns,
			r.Input, r.Output, r.CacheRead, r.CacheWrite, r.Reasoning, cost)
	}
	for _, n := range notes {
		b.WriteString("\nNote: " + n + "\n")
	}
	return b.String(), nil
}

func orTotal(by insight.Grouping) string {
	if by == insight.ByTotal {
		return "total"
	}
	return string(by)
}

// sessionNumber reads "S12".
func sessionNumber(s string) int64 {
	var n int64
	fmt.Sscanf(strings.TrimPrefix(s, "S"), "%d", &n) //nolint:errcheck // 0 for a key that is no session
	return n
}

// SessionRefs lists the pull requests, issues, commits, branches and URLs
// sessions mention, each with the event that first mentions it.
func (h *History) SessionRefs(ctx context.Context, a RefsArgs) (Answer, error) {
	return paged(ctx, h, ToolRefs, a, a.Paging, h.renderRefs)
}

func (h *History) renderRefs(ctx context.Context, a RefsArgs) (string, error) {
	srcs, session, err := h.scope(ctx, a.Session)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Refs\n\n")
	n := 0
	for _, s := range srcs {
		if s.insight == nil {
			b.WriteString("Note: " + noInsight(s).Error() + "\n")
			continue
		}
		rows, err := s.insight.Refs().List(ctx, session)
		if err != nil {
			return "", err
		}
		if len(rows) > maxRefs {
			fmt.Fprintf(&b, "The newest %d of %d refs; name a session for all of its own.\n\n", maxRefs, len(rows))
			rows = rows[len(rows)-maxRefs:]
		}
		for _, r := range rows {
			n++
			id := sessionNumber(r.Session)
			fmt.Fprintf(&b, "- %s %s `%s`", h.cite(s, id, r.FirstSeq), r.Kind, mdCell(r.Value))
			if r.URL != "" {
				fmt.Fprintf(&b, " <%s>", r.URL)
			}
			fmt.Fprintf(&b, " · %s · [open](%s)\n", mdCell(r.Worktree), link(s, id, r.FirstSeq))
		}
	}
	if n == 0 {
		b.WriteString("No refs.\n")
	}
	return b.String(), nil
}

// scope resolves an optional session argument: every source and session
// 0 when empty, else the session's source and id.
func (h *History) scope(ctx context.Context, session string) ([]*source, int64, error) {
	if strings.TrimSpace(session) == "" {
		return h.sources, 0, nil
	}
	ref, err := h.parseSession(session)
	if err != nil {
		return nil, 0, err
	}
	if _, err := ref.src.st.Sessions().Get(ctx, ref.id); err != nil {
		return nil, 0, badArg("session %q: %v", session, err)
	}
	return []*source{ref.src}, ref.id, nil
}
