package copilot

// A session that the session store keeps but whose event log is gone is
// mirrored by Lazuli as a file of lines of its own (like OpenCode's
// database): a session line, then one line per turn. The Parser reads
// them beside Copilot's own events.

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// The types of the lines Lazuli writes for a stored session (see
// StoreSession.Lines); Copilot writes none of them.
const (
	LineStoreSession = "lazuli.copilot_store.session"
	LineStoreTurn    = "lazuli.copilot_store.turn"
)

// Lines are the session as lines for the Parser: a LineStoreSession with
// its id, folder, branch and summary, then a LineStoreTurn per turn with
// its prompt and answer. The same session gives the same bytes, and a
// session whose turns grew gives the same lines and more.
func (s StoreSession) Lines() [][]byte {
	out := make([][]byte, 0, 1+len(s.Turns))
	out = append(out, storeLine(LineStoreSession, s.ID, s.Created, map[string]any{
		"sessionId": s.ID, "cwd": s.Cwd, "branch": s.Branch, "repository": s.Repository, "summary": s.Summary,
	}))
	for _, t := range s.Turns {
		out = append(out, storeLine(LineStoreTurn, s.ID+"/"+strconv.Itoa(t.Index), t.At, map[string]any{
			"turnIndex": t.Index, "userMessage": t.User, "assistantResponse": t.Assistant,
		}))
	}
	return out
}

// storeLine is one mirror line; a zero time is left out.
func storeLine(typ, id string, at time.Time, data map[string]any) []byte {
	l := map[string]any{"type": typ, "id": id, "data": data}
	if !at.IsZero() {
		l["timestamp"] = at.UTC().Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(l) // strings, ints and maps of them always marshal
	return b
}

// storeTurn maps a LineStoreTurn: the prompt, the answer and a Complete
// (failed when the store has no answer). The store keeps no tool calls,
// thinking or usage.
func (p *Parser) storeTurn(d *parse.Fields) {
	if !p.inited {
		p.start("", p.model)
	}
	if u := d.Str("userMessage"); strings.TrimSpace(u) != "" {
		p.emit(codec.UserMessage(u))
	}
	a := d.Str("assistantResponse")
	if strings.TrimSpace(a) != "" {
		p.emit(codec.AssistantText(a))
	}
	p.turn = turn{}
	p.emit(codec.Complete(strings.TrimSpace(a) != "", 0, 0))
}
