package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

// ReadArgs are read_session's arguments.
type ReadArgs struct {
	Session   string `json:"session" jsonschema:"the session: S12 as search_sessions cites it (S12@2 for the second store)"`
	FromEvent int64  `json:"from_event,omitempty" jsonschema:"start at this event (seq): 340 for [S12#340]; the session's start when 0"`
	Thinking  bool   `json:"thinking,omitempty" jsonschema:"include the agent's thinking (left out by default)"`
	Paging
}

// Transcript limits.
const (
	readBatch  = 200  // events loaded per read (one short transaction each)
	maxEventCh = 4000 // characters of one event shown
)

// ReadSession returns the session's transcript from an event as compact
// Markdown, each event under its citation; a cut answer's cursor
// continues at the next event.
func (h *History) ReadSession(ctx context.Context, a ReadArgs) (Answer, error) {
	limit, err := maxChars(a.MaxChars)
	if err != nil {
		return Answer{}, err
	}
	if a.Cursor != "" {
		c, err := decodeCursor(ToolRead, a.Cursor)
		if err != nil {
			return Answer{}, err
		}
		var saved ReadArgs
		if err := json.Unmarshal(c.Args, &saved); err != nil {
			return Answer{}, badArg("cursor %.40q is not one this server gave", a.Cursor)
		}
		saved.MaxChars = a.MaxChars
		a = saved
	}
	ref, err := h.parseSession(a.Session)
	if err != nil {
		return Answer{}, err
	}
	if a.FromEvent < 0 {
		return Answer{}, badArg("from_event %d: want an event seq (0 for the start)", a.FromEvent)
	}
	s, err := ref.src.st.Sessions().Get(ctx, ref.id)
	if errors.Is(err, store.ErrNotFound) {
		return Answer{}, badArg("session %q: no such session", a.Session)
	}
	if err != nil {
		return Answer{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s\n\nworktree %s · created %s · %d events · [open](%s)\n\n", h.cite(ref.src, s.ID, 0),
		mdCell(s.DisplayName()), mdCell(s.Worktree), s.Created, s.EventCount, link(ref.src, s.ID, a.FromEvent))
	// Room for the header and the note that ends a cut part (its cursor
	// holds the arguments).
	raw, _ := json.Marshal(a) // strings, numbers and a bool
	next, err := h.writeEvents(ctx, &b, ref, a, limit-utf8.RuneCountInString(b.String())-2*len(raw)-200)
	if err != nil {
		return Answer{}, err
	}
	text, n := redact(b.String())
	ans := Answer{Text: text, Redactions: n}
	if next > 0 {
		more := a
		more.FromEvent, more.Cursor, more.MaxChars = next, "", 0
		raw, _ = json.Marshal(more)
		ans.Cursor = cursor{Tool: ToolRead, Args: raw}.encode()
		ans.Text += fmt.Sprintf("\n… continues at event %d: call read_session with cursor %q (or from_event %d).\n", next, ans.Cursor, next)
	} else {
		ans.Text += "\n(end of the session)\n"
	}
	return ans, nil
}

// writeEvents writes the events from a.FromEvent until about budget
// characters are written, and returns the seq of the first event left
// out (0 when the session's end was reached).
func (h *History) writeEvents(ctx context.Context, b *strings.Builder, ref sessionRef, a ReadArgs, budget int) (int64, error) {
	from := max(a.FromEvent, 1)
	// The last event's seq (0 with one event or none): where to stop
	// when a batch of seqs holds no event.
	last, _, err := ref.src.st.Events().TailStart(ctx, ref.id, 0, 1)
	if err != nil {
		return 0, err
	}
	written := 0
	for {
		evs, err := ref.src.st.Events().Range(ctx, ref.id, from, from+readBatch-1)
		if err != nil {
			return 0, err
		}
		for _, e := range evs {
			var one strings.Builder
			h.writeEvent(&one, ref, e, a.Thinking)
			n := utf8.RuneCountInString(one.String())
			if written > 0 && written+n > budget {
				return e.Seq, nil
			}
			if n > budget { // one event longer than the whole part
				cut := one.String()[:cutAt(one.String(), max(budget-60, 1))]
				b.WriteString(cut + "\n… (event cut: raise max_chars to read it whole)\n\n")
				return e.Seq + 1, nil
			}
			b.WriteString(one.String())
			written += n
		}
		if from+readBatch > last {
			return 0, nil
		}
		from += readBatch
	}
}

// writeEvent writes one event as a line (or a few) under its citation.
func (h *History) writeEvent(b *strings.Builder, ref sessionRef, e store.StoredEvent, thinking bool) {
	c := h.cite(ref.src, ref.id, e.Seq)
	if thinking {
		for _, t := range e.Thinking {
			fmt.Fprintf(b, "%s _thinking_: %s\n\n", c, clip(t))
		}
	}
	ev := e.Event
	switch ev.Kind {
	case codec.KindInit:
		fmt.Fprintf(b, "%s started: model %s in %s\n\n", c, ev.Model, ev.CWD)
	case codec.KindUserMessage:
		fmt.Fprintf(b, "%s **user**: %s\n\n", c, clip(ev.Content))
	case codec.KindAssistantText:
		fmt.Fprintf(b, "%s **assistant**: %s\n\n", c, clip(ev.Text))
	case codec.KindToolCall:
		fmt.Fprintf(b, "%s **tool %s**: %s\n\n", c, ev.ToolName, clip(string(ev.Input)))
	case codec.KindToolResult:
		label := "result"
		if ev.IsError {
			label = "error"
		}
		fmt.Fprintf(b, "%s **%s of %s**:\n", c, label, ev.ToolName)
		writeFence(b, "", clip(ev.Content))
	case codec.KindPlan:
		fmt.Fprintf(b, "%s **plan %s**: %s\n\n", c, ev.Name, clip(ev.Content))
	case codec.KindHook:
		fmt.Fprintf(b, "%s hook %s: %s\n\n", c, ev.Name, clip(ev.Output))
	case codec.KindCommand:
		fmt.Fprintf(b, "%s command %s\n\n", c, ev.Name)
	case codec.KindComplete:
		ok := "succeeded"
		if !ev.Success {
			ok = "failed"
		}
		fmt.Fprintf(b, "%s turn %s after %.1f s, $%.4f\n\n", c, ok, float64(ev.DurationMS)/1000, ev.CostUSD)
		for _, f := range e.RunFailures {
			fmt.Fprintf(b, "%s run failure: %s\n\n", c, clip(f))
		}
	case codec.KindModelSwitch:
		fmt.Fprintf(b, "%s model switched to %s\n\n", c, ev.Model)
	default:
		fmt.Fprintf(b, "%s %s\n\n", c, ev.Kind)
	}
}

// clip makes stored text safe to hand over (control characters escaped)
// and cuts it to maxEventCh characters.
func clip(s string) string {
	s = printable.Text(s)
	if utf8.RuneCountInString(s) <= maxEventCh {
		return s
	}
	n := 0
	for i := range s {
		if n == maxEventCh {
			return s[:i] + fmt.Sprintf(" … (%d more characters)", utf8.RuneCountInString(s[i:]))
		}
		n++
	}
	return s
}
