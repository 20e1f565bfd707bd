package pi

import (
	"encoding/json"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
)

// piTools maps Pi's built-in tools onto AZUREAL's (Claude's) names and keys.
var piTools = map[string]parse.ToolMap{
	"read":  {Name: "Read", Keys: map[string]string{"path": "file_path"}},
	"write": {Name: "Write", Keys: map[string]string{"path": "file_path"}},
	"edit":  {Name: "Edit", Keys: map[string]string{"path": "file_path"}},
	"bash":  {Name: "Bash"},
	"grep":  {Name: "Grep"},
	"find":  {Name: "Glob"},
	"ls":    {Name: "LS"},
}

// piEdit is Pi's edit input: one file, its replacements.
type piEdit struct {
	Path  string `json:"path"`
	Edits []struct {
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	} `json:"edits"`
}

// claudeEdit and claudeMultiEdit are the inputs AZUREAL's Edit cards read.
type claudeEdit struct {
	FilePath  string `json:"file_path"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

type claudeMultiEdit struct {
	FilePath string       `json:"file_path"`
	Edits    []claudeEdit `json:"edits"`
}

// toolCall maps a Pi tool call: its AZUREAL name, input and file path. An
// edit with one replacement is an Edit (old/new kept), with several a
// MultiEdit.
func toolCall(name string, args json.RawMessage) (string, json.RawMessage, *string) {
	if name == "edit" {
		var e piEdit
		if json.Unmarshal(args, &e) == nil && e.Path != "" && len(e.Edits) > 0 {
			path := e.Path
			if len(e.Edits) == 1 {
				b, _ := json.Marshal(claudeEdit{path, e.Edits[0].OldText, e.Edits[0].NewText}) // plain strings always marshal
				return "Edit", b, &path
			}
			m := claudeMultiEdit{FilePath: path}
			for _, x := range e.Edits {
				m.Edits = append(m.Edits, claudeEdit{OldString: x.OldText, NewString: x.NewText})
			}
			b, _ := json.Marshal(m)
			return "MultiEdit", b, &path
		}
	}
	return parse.MapTool(piTools, name, args)
}

// contentText joins the text parts of a message's content (a string, or
// an array of parts).
func contentText(raw json.RawMessage) string {
	if s, ok := parse.StrOf(raw); ok {
		return s
	}
	parts, _ := parse.TextParts(raw, "text")
	return strings.Join(parts, "\n")
}

// mustCommand is a Bash input {"command": cmd}.
func mustCommand(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd}) // a string map always marshals
	return b
}
