package export

import (
	"bufio"
	"fmt"
	"io"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/printable"
)

// Render writes src in format f to w. Render does not scan or redact:
// pass Redact(src, Scan(src)) to export without the secrets.
//
// Everything is written through a printable.Writer: a control character
// or bidirectional override in the session (ESC, BEL, NUL, a lone CR,
// U+202E) is shown as an escape (\x1b, \u202e) in Markdown and HTML, and
// as a JSON escape in JSON, instead of reaching a terminal that prints the
// file or an editor that opens it. (Tool results and hook output lose
// their terminal colour sequences first, as cleanText says.)
func Render(w io.Writer, src Source, f Format) error {
	var pw *printable.Writer
	var render func(*bufio.Writer, Source) error
	switch f {
	case Markdown:
		pw, render = printable.NewWriter(w), renderMarkdown
	case HTML:
		pw, render = printable.NewWriter(w), renderHTML
	case JSON:
		pw, render = printable.NewJSONWriter(w), renderJSON
	default:
		return fmt.Errorf("unknown format %q", f)
	}
	bw := bufio.NewWriterSize(pw, 64<<10)
	if err := render(bw, src); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return pw.Close()
}

// meta is the header of a Markdown or HTML export, one line per field.
type meta struct {
	label, value string
}

// metadata lists what the header of an export says about the session.
func metadata(src Source) []meta {
	s := src.Session
	out := []meta{
		{"Session", fmt.Sprintf("S%d", s.ID)},
		{"Worktree", s.Worktree},
		{"Created", s.Created + " UTC"},
		{"Status", statusText(s.Completed)},
	}
	turns, durationMS, cost := 0, int64(0), 0.0
	prompts := 0
	for i := range src.Events {
		switch e := &src.Events[i].Event; e.Kind {
		case codec.KindComplete:
			turns++
			durationMS += int64(e.DurationMS)
			cost += e.CostUSD
		case codec.KindUserMessage:
			prompts++
		}
	}
	if turns == 0 && s.DurationMS != nil {
		turns, durationMS = 1, *s.DurationMS
		if s.CostUSD != nil {
			cost = *s.CostUSD
		}
	}
	if turns > 0 {
		out = append(out,
			meta{"Duration", formatDuration(durationMS) + " over " + display.Plural(turns, "turn")},
			meta{"Cost", fmt.Sprintf("$%.4f", cost)})
	}
	counts := display.Plural(len(src.Events), "event") + " · " + display.Plural(prompts, "prompt")
	if n := len(src.Compactions); n > 0 {
		counts += " · " + display.Plural(n, "compaction")
	}
	out = append(out, meta{"Contents", counts})
	if src.Redactions > 0 {
		out = append(out, meta{"Redacted", display.Plural(src.Redactions, "occurrence") + " of possible secrets replaced by [REDACTED:rule]"})
	}
	return out
}

// statusText is the completion badge of a session: ✓, ✗ or ○.
func statusText(completed *bool) string {
	switch {
	case completed == nil:
		return "○ unknown"
	case *completed:
		return "✓ completed"
	}
	return "✗ failed"
}

// generator names the program in a file's footer.
const generator = "Lazuli"
