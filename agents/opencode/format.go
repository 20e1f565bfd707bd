package opencode

import "github.com/lazuli-app/lazuli/agents/parse"

func init() {
	parse.RegisterFormat(parse.FormatSpec{Format: Format, Detect: DetectHistory,
		New: func(opts parse.Options) parse.Parser { return NewParser(opts) }})
	parse.RegisterFormat(parse.FormatSpec{Format: FormatRun, Detect: DetectRun,
		New: func(opts parse.Options) parse.Parser { return NewStreamParser(opts) }})
}

// DetectHistory reports whether a line is one DB.Lines writes.
func DetectHistory(o parse.Object) bool {
	t := o.Str("type")
	return (t == LineSession || t == LineMessage) && o.Has("id")
}

// runTypes are the line types of `opencode run --format json`.
var runTypes = map[string]bool{"step_start": true, "step_finish": true, "text": true,
	"reasoning": true, "tool_use": true, "error": true}

// DetectRun reports whether a line is `opencode run --format json`'s: a
// known type with OpenCode's sessionID (ses_…), and a part or an error.
func DetectRun(o parse.Object) bool {
	id := o.Str("sessionID")
	return runTypes[o.Str("type")] && len(id) > 4 && id[:4] == "ses_" && (o.Has("part") || o.Has("error"))
}
