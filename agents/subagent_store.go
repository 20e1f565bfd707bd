package agents

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// StoreTranscript writes a parsed transcript into st in one transaction:
// as a new session of worktree named name, or appended to session target
// when it is not 0, with a session of its own for each sub-agent (named
// after the parent and what it was asked, linked to the parent's call).
// The transcript's usage goes with the parent's events (Claude's result
// line counts sub-agents' tokens in the whole run's). It returns the
// parent session and the number of events stored in all sessions.
// ImportTranscript is the import paths' way to create the session: named
// and dated from the file, and never twice.
func StoreTranscript(ctx context.Context, st *store.Store, t Transcript, target int64, worktree, name string) (int64, int, error) {
	return StoreTranscriptAt(ctx, st, t, target, worktree, name, "")
}

// StoreTranscriptAt is StoreTranscript with the new session's created time
// ("" means now). Each sub-agent is dated by its own first timestamp, else
// by created.
func StoreTranscriptAt(ctx context.Context, st *store.Store, t Transcript, target int64, worktree, name, created string) (int64, int, error) {
	if len(t.Subagents) == 0 {
		if target != 0 {
			n, err := st.Events().Append(ctx, target, t.Events, t.Usage...)
			return target, n, err
		}
		s, n, err := st.Transfer().CreateAt(ctx, worktree, name, created, t.Events, t.Usage...)
		return s.ID, n, err
	}
	subs := make([]store.SubagentBatch, len(t.Subagents))
	for i, s := range t.Subagents {
		subs[i] = subagentBatch(s.ToolUseID, s.Asked, s.Events)
		subs[i].Created = created
		if !s.Started.IsZero() {
			subs[i].Created = s.Started.UTC().Format(store.TimeFormat)
		}
	}
	if target != 0 {
		n, err := st.Events().AppendWithSubagents(ctx, target, t.Events, subs, t.Usage...)
		return target, n, err
	}
	return st.Transfer().CreateWithSubagentsAt(ctx, worktree, name, created, t.Events, subs, t.Usage...)
}

// subagentBatch is a new sub-agent session, named after its parent and
// what it was asked.
func subagentBatch(toolUseID, asked string, events []codec.Event) store.SubagentBatch {
	return store.SubagentBatch{ToolUseID: toolUseID, Events: events,
		Name: func(parent string) string { return SubagentName(parent, asked) }}
}

// SubagentName is the name of a sub-agent's session from its parent's
// name and what it was asked (SubagentTitle for a native transcript).
func SubagentName(parent, asked string) string {
	if asked = Shorten(asked, 40); asked == "" {
		asked = "sub-agent"
	}
	return Shorten(parent, 30) + " › " + asked
}

// Shorten returns the first non-blank line of s with its white space
// collapsed, cut to max runes with an ellipsis.
func Shorten(s string, max int) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) <= max {
			return line
		}
		r := []rune(line)
		return strings.TrimSpace(string(r[:max-1])) + "…"
	}
	return ""
}
