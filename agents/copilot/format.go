package copilot

import (
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
)

func init() {
	parse.RegisterFormat(parse.FormatSpec{Format: Format, Detect: Detect,
		New: func(opts parse.Options) parse.Parser { return NewParser(opts) }})
}

// Detect reports whether a line is Copilot CLI's: an event with an id, a
// data object and a type in its namespaces (session., user., assistant.,
// tool., subagent.), the stream's closing result line with its
// sessionId, or a line Lazuli mirrors from the session store.
func Detect(o parse.Object) bool {
	t := o.Str("type")
	if t == "result" {
		return o.Has("sessionId") && o.Has("exitCode")
	}
	if !o.Has("id") || o.Obj("data") == nil {
		return false
	}
	if t == LineStoreSession || t == LineStoreTurn {
		return true
	}
	for _, p := range []string{"session.", "user.", "assistant.", "tool.", "subagent.", "model."} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
