package export

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// text is one string an export contains, with where it comes from.
type text struct {
	seq  int64 // see Location.Seq
	tool string
	name string // with tool, the Location.Field: "Bash command"
	s    string
}

// label is the text's Location.Field, built only for a finding.
func (t text) label() string {
	if t.tool == "" {
		return t.name
	}
	return t.tool + " " + t.name
}

// visitor receives each text with its number in walk order and returns
// the text to keep (t.s when unchanged).
type visitor func(idx int, t text) string

// walk calls visit for every text of src, in a fixed order: the session's
// fields, each event's fields in seq order (every string inside a tool
// input included, keys too), then the compaction summaries, the full
// texts and the thinking. With rewrite
// set it returns a copy of src holding visit's results; otherwise src.
func walk(src Source, rewrite bool, visit visitor) Source {
	w := walker{rewrite: rewrite, visit: visit}
	s := &src.Session
	s.Name = w.text(0, "session name", s.Name)
	s.Worktree = w.text(0, "worktree", s.Worktree)
	s.LastClaudeUUID = w.text(0, "Claude session id", s.LastClaudeUUID)
	if rewrite {
		src.Events = slices.Clone(src.Events)
		src.Compactions = slices.Clone(src.Compactions)
	}
	// Without rewrite, walk works on copies: the events may be shared with
	// the store's cache and the window, and must not even be written with
	// the same values.
	for i := range src.Events {
		if rewrite {
			w.event(&src.Events[i])
		} else {
			e := src.Events[i]
			w.event(&e)
		}
	}
	for i := range src.Compactions {
		c := src.Compactions[i]
		c.Summary = w.text(c.AfterSeq, "compaction summary", c.Summary)
		if rewrite {
			src.Compactions[i] = c
		}
	}
	// The full texts come last, so the numbering of everything before
	// them does not depend on what the store kept.
	seqs := slices.Sorted(maps.Keys(src.Full))
	full := src.Full
	if rewrite && full != nil {
		full = maps.Clone(full)
	}
	for _, seq := range seqs {
		if s := w.text(seq, "full output", src.Full[seq]); rewrite {
			full[seq] = s
		}
	}
	src.Full = full
	// Then the thinking, by event.
	for i := range src.Events {
		thoughts := src.Events[i].Thinking
		if rewrite && thoughts != nil {
			thoughts = slices.Clone(thoughts)
			src.Events[i].Thinking = thoughts
		}
		for j, th := range thoughts {
			if s := w.text(src.Events[i].Seq, "thinking", th); rewrite {
				thoughts[j] = s
			}
		}
	}
	return src
}

// walker carries walk's state.
type walker struct {
	rewrite bool
	visit   visitor
	idx     int
}

// text visits one text and returns what to keep of it.
func (w *walker) text(seq int64, name, s string) string {
	return w.toolText(seq, "", name, s)
}

// toolText visits a text of a tool call or result.
func (w *walker) toolText(seq int64, tool, name, s string) string {
	idx := w.idx
	w.idx++
	if s == "" {
		return s
	}
	return w.visit(idx, text{seq: seq, tool: tool, name: name, s: s})
}

// event visits the string fields of one event, in place.
func (w *walker) event(se *store.StoredEvent) {
	e, seq := &se.Event, se.Seq
	tool := e.ToolName
	if tool == "" {
		tool = "tool"
	}
	switch e.Kind {
	case codec.KindInit:
		e.CWD = w.text(seq, "working folder", e.CWD)
		e.Model = w.text(seq, "model", e.Model)
	case codec.KindModelSwitch:
		e.Model = w.text(seq, "model", e.Model)
	case codec.KindHook:
		e.Name = w.text(seq, "hook name", e.Name)
		e.Output = w.text(seq, "hook output", e.Output)
	case codec.KindCommand:
		e.Name = w.text(seq, "command", e.Name)
	case codec.KindUserMessage:
		e.Content = w.text(seq, "prompt", e.Content)
	case codec.KindAssistantText:
		e.Text = w.text(seq, "assistant text", e.Text)
	case codec.KindPlan:
		e.Name = w.text(seq, "plan name", e.Name)
		e.Content = w.text(seq, "plan", e.Content)
	case codec.KindToolCall:
		e.ToolUseID = w.text(seq, "tool use id", e.ToolUseID)
		e.ToolName = w.text(seq, "tool name", e.ToolName)
		e.FilePath = w.path(seq, tool, e.FilePath)
		e.Input = w.json(seq, tool, e.Input)
	case codec.KindToolResult:
		e.ToolUseID = w.text(seq, "tool use id", e.ToolUseID)
		e.ToolName = w.text(seq, "tool name", e.ToolName)
		e.FilePath = w.path(seq, tool, e.FilePath)
		name := "result"
		if e.IsError {
			name = "error"
		}
		e.Content = w.toolText(seq, tool, name, e.Content)
	}
}

// path visits the optional file path of a tool call or result.
func (w *walker) path(seq int64, tool string, p *string) *string {
	if p == nil {
		w.idx++
		return nil
	}
	s := w.toolText(seq, tool, "file path", *p)
	if s == *p {
		return p
	}
	return &s
}

// json visits every string literal of a tool input, keys included, each
// labelled with the tool and the key it belongs to ("Bash command", "Edit
// new_string"). A rewritten literal is re-encoded in place, so the input
// stays valid JSON with its shape.
func (w *walker) json(seq int64, tool string, raw json.RawMessage) json.RawMessage {
	var out []byte // the rewritten input; nil while unchanged
	copied := 0    // raw[:copied] is in out
	key := ""
	for i := 0; i < len(raw); {
		if raw[i] != '"' {
			i++
			continue
		}
		end, ok := stringEnd(raw, i)
		if !ok {
			break
		}
		lit := raw[i:end]
		s := decodeString(lit)
		isKey := nextNonSpace(raw, end) == ':'
		name := "input"
		switch {
		case isKey:
			name = "input key"
		case key != "":
			name = key
		}
		got := w.toolText(seq, tool, name, s)
		if isKey {
			key = s
		}
		if w.rewrite && got != s {
			out = append(out, raw[copied:i]...)
			out = codec.AppendJSONString(out, got)
			copied = end
		}
		i = end
	}
	if out == nil {
		return raw
	}
	return append(out, raw[copied:]...)
}

// stringEnd returns the offset just past the string literal starting at
// raw[i] ('"'), and false when it is not terminated.
func stringEnd(raw []byte, i int) (int, bool) {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(raw), false
}

// decodeString decodes a JSON string literal. A literal that does not
// decode is visited as written.
func decodeString(lit []byte) string {
	body := lit[1 : len(lit)-1]
	if !slices.Contains(body, '\\') {
		return string(body)
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return string(body)
	}
	return s
}

func nextNonSpace(raw []byte, i int) byte {
	for ; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return raw[i]
	}
	return 0
}
