package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Paging is the arguments every tool takes besides its own.
type Paging struct {
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"the longest answer in characters (500 to 200000; default 20000); a longer one ends with a cursor"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"the cursor a cut answer ended with: returns its next part (the other arguments are then ignored)"`
}

// The tools' names.
const (
	ToolSearch      = "search_sessions"
	ToolRead        = "read_session"
	ToolRecentEdits = "recent_edits"
	ToolFileHistory = "file_history"
	ToolRefs        = "session_refs"
	ToolUsage       = "usage"
	ToolTried       = "what_was_tried"
	ToolQuery       = "query"
)

// paged runs one tool call: a first call renders the answer from args, a
// call with a cursor renders it again from the arguments the cursor
// holds and returns the part after its offset. Renders are deterministic
// for an unchanged store, so the parts join into the whole answer.
func paged[A any](ctx context.Context, h *History, tool string, args A, p Paging, render func(context.Context, A) (string, error)) (Answer, error) {
	limit, err := maxChars(p.MaxChars)
	if err != nil {
		return Answer{}, err
	}
	if err := h.waitIndexes(ctx); err != nil {
		return Answer{}, err
	}
	c := cursor{Tool: tool}
	if p.Cursor != "" {
		if c, err = decodeCursor(tool, p.Cursor); err != nil {
			return Answer{}, err
		}
		var saved A
		if err := json.Unmarshal(c.Args, &saved); err != nil {
			return Answer{}, badArg("cursor %.40q is not one this server gave", p.Cursor)
		}
		args = saved
	} else if c.Args, err = json.Marshal(args); err != nil {
		return Answer{}, fmt.Errorf("%s: %w", tool, err)
	}
	text, err := render(ctx, args)
	if err != nil {
		return Answer{}, err
	}
	return page(text, c.Offset, limit, c), nil
}

// since reads a since argument: YYYY-MM-DD or Nd (the last N days, today
// included); "" is all time. It returns the first day, YYYY-MM-DD.
func (h *History) since(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		if _, err := fmt.Sscanf(n, "%d", &days); err == nil && days > 0 && days <= 100000 && fmt.Sprint(days) == n {
			return h.now().UTC().AddDate(0, 0, 1-days).Format("2006-01-02"), nil
		}
	}
	if _, err := time.Parse("2006-01-02", s); err == nil {
		return s, nil
	}
	return "", badArg("since %q: want YYYY-MM-DD or Nd (7d, 30d)", s)
}

// noInsight is the error of a tool that needs the insight index of src.
func noInsight(src *source) error {
	return badArg("the insight index of %s does not exist yet: open the project in Lazuli, or run `lazuli stats`, once", src.st.Path())
}

// mdCell makes s safe inside one Markdown table cell or list line.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	return s
}
