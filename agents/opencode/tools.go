package opencode

import (
	"encoding/json"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// openCodeTools maps OpenCode's built-in tools onto AZUREAL's (Claude's)
// names and keys; apply_patch's patchText becomes the patch envelope
// editdiff reads.
var openCodeTools = map[string]parse.ToolMap{
	"read":        {Name: "Read", Keys: map[string]string{"filePath": "file_path"}},
	"write":       {Name: "Write", Keys: map[string]string{"filePath": "file_path"}},
	"edit":        {Name: "Edit", Keys: map[string]string{"filePath": "file_path", "oldString": "old_string", "newString": "new_string", "replaceAll": "replace_all"}},
	"multiedit":   {Name: "MultiEdit", Keys: map[string]string{"filePath": "file_path"}},
	"apply_patch": {Name: "Edit", Keys: map[string]string{"patchText": "patch"}},
	"patch":       {Name: "Edit", Keys: map[string]string{"patchText": "patch"}},
	"bash":        {Name: "Bash"},
	"grep":        {Name: "Grep"},
	"glob":        {Name: "Glob"},
	"list":        {Name: "LS"},
	"task":        {Name: "Task"},
	"todowrite":   {Name: "TodoWrite"},
	"todoread":    {Name: "TodoRead"},
	"webfetch":    {Name: "WebFetch"},
	"websearch":   {Name: "WebSearch"},
}

// toolEvents maps a tool part: its call and, once it ran, its result. A
// shell command that exited non-zero is an error, as Claude's Bash is.
func toolEvents(part parse.Object) []codec.Event {
	st := part.Obj("state")
	id := part.Str("callID")
	name, input, path := parse.MapTool(openCodeTools, part.Str("tool"), st["input"])
	out := []codec.Event{codec.ToolCall(id, name, path, input)}
	switch st.Str("status") {
	case "completed":
		isErr := false
		if code, ok := st.Obj("metadata").Integer("exit"); ok && code != 0 {
			isErr = true
		}
		out = append(out, codec.ToolResult(id, name, path, st.Str("output"), isErr))
	case "error":
		out = append(out, codec.ToolResult(id, name, path, st.Str("error"), true))
	}
	return out
}

// promptText is a user message's text. OpenCode stores the prompt of
// `opencode run` wrapped in literal double quotes, its own quotes escaped
// with a backslash (He said "hi" is stored as "He said \"hi\""; newlines
// and other backslashes as they were): unquote undoes that.
func promptText(parts []parse.Object) string {
	var texts []string
	for _, p := range parts {
		if p.Str("type") != "text" {
			continue
		}
		if syn, _ := p.Boolean("synthetic"); syn {
			continue
		}
		texts = append(texts, unquote(p.Str("text")))
	}
	return strings.Join(texts, "\n")
}

// unquote takes off the quotes OpenCode wrapped a prompt in.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `\"`, `"`)
	}
	return s
}

// mustString is s as a JSON string.
func mustString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}
