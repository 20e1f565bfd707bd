package pi

import "github.com/lazuli-app/lazuli/agents/parse"

func init() {
	parse.RegisterFormat(parse.FormatSpec{Format: Format, Detect: Detect,
		New: func(opts parse.Options) parse.Parser { return NewParser(opts) }})
}

// streamTypes are the line types only Pi's --mode json stream prints.
var streamTypes = map[string]bool{"agent_start": true, "agent_end": true, "turn_start": true,
	"turn_end": true, "message_start": true, "message_update": true, "message_end": true,
	"tool_execution_start": true, "tool_execution_update": true, "tool_execution_end": true,
	"auto_retry_start": true, "auto_retry_end": true}

// Detect reports whether a line is Pi's: a session header (type session
// with version, id and cwd), an entry of its tree (an id and a parentId
// key, with a message, model or thinking level), or a line of its stream.
func Detect(o parse.Object) bool {
	t := o.Str("type")
	switch {
	case t == "session":
		return o.Has("version") && o.Has("id") && o.Has("cwd") && !o.Has("payload")
	case streamTypes[t]:
		return t != "message_end" || o.Obj("message").Has("role")
	}
	_, hasParent := o["parentId"]
	return hasParent && o.Has("id") && (t == "message" && o.Obj("message").Has("role") ||
		t == "model_change" || t == "thinking_level_change" || t == "compaction")
}
