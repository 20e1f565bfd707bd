package qwen

import (
	"encoding/json"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// toolMaps lists, per Qwen tool, the stored name and its input's keys
// with the Qwen argument each comes from, in order.
var toolMaps = map[string]struct {
	name string
	keys [][2]string
}{
	"write_file":        {"Write", [][2]string{{"file_path", "file_path"}, {"content", "content"}}},
	"edit":              {"Edit", [][2]string{{"file_path", "file_path"}, {"old_string", "old_string"}, {"new_string", "new_string"}, {"replace_all", "replace_all"}}},
	"read_file":         {"Read", [][2]string{{"file_path", "file_path"}, {"offset", "offset"}, {"limit", "limit"}}},
	"run_shell_command": {"Bash", [][2]string{{"command", "command"}, {"description", "description"}, {"cwd", "directory"}, {"timeout", "timeout"}, {"run_in_background", "is_background"}}},
	"grep_search":       {"Grep", [][2]string{{"pattern", "pattern"}, {"path", "path"}, {"glob", "glob"}, {"head_limit", "limit"}}},
	"glob":              {"Glob", [][2]string{{"pattern", "pattern"}, {"path", "path"}}},
	"web_fetch":         {"WebFetch", [][2]string{{"url", "url"}, {"prompt", "prompt"}}},
	"agent":             {"Task", [][2]string{{"description", "description"}, {"prompt", "prompt"}, {"subagent_type", "subagent_type"}}},
}

// MapTool returns the name and input a Qwen tool call is stored with:
// Claude's name and keys where one fits, each with Qwen's raw JSON value;
// other tools keep their name and arguments.
func MapTool(name string, raw json.RawMessage) (string, json.RawMessage) {
	m, ok := toolMaps[name]
	if !ok {
		if len(raw) == 0 {
			raw = json.RawMessage("{}")
		}
		return name, raw
	}
	args, _ := parse.DecodeObject(raw)
	b := make([]byte, 0, len(raw)+32)
	b = append(b, '{')
	for _, k := range m.keys {
		v, ok := args[k[1]]
		if !ok {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = codec.AppendJSONString(b, k[0])
		b = append(b, ':')
		b = append(b, v...)
	}
	return m.name, append(b, '}')
}

// toolName is the stored name of a Qwen tool.
func toolName(name string) string {
	if m, ok := toolMaps[name]; ok {
		return m.name
	}
	return name
}

// filePath returns input.file_path (else path) when it is a string.
func filePath(input json.RawMessage) *string {
	in, _ := parse.DecodeObject(input)
	for _, k := range []string{"file_path", "path"} {
		if s, ok := in.StrOK(k); ok {
			return &s
		}
	}
	return nil
}
