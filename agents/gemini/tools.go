package gemini

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// toolCall maps a Gemini CLI tool call to the name AZUREAL's views and
// compaction know (Claude's) and that tool's input; tools without a
// counterpart keep their name and arguments.
func toolCall(id, name string, args parse.Object, raw json.RawMessage) codec.Event {
	mapped, input := mapTool(name, args, raw)
	var path *string
	for _, k := range []string{"file_path", "dir_path"} {
		if s, ok := args.StrOK(k); ok && (k == "file_path" || mapped != "Bash") {
			path = &s
			break
		}
	}
	return codec.ToolCall(id, mapped, path, input)
}

// toolMaps lists, per Gemini tool, the stored name and its input's keys
// with the Gemini argument each comes from, in order.
var toolMaps = map[string]struct {
	name string
	keys [][2]string
}{
	"write_file":        {"Write", [][2]string{{"file_path", "file_path"}, {"content", "content"}}},
	"replace":           {"Edit", [][2]string{{"file_path", "file_path"}, {"old_string", "old_string"}, {"new_string", "new_string"}, {"replace_all", "allow_multiple"}, {"description", "instruction"}}},
	"read_file":         {"Read", [][2]string{{"file_path", "file_path"}, {"offset", "start_line"}, {"limit", "end_line"}}},
	"run_shell_command": {"Bash", [][2]string{{"command", "command"}, {"description", "description"}, {"cwd", "dir_path"}}},
	"grep_search":       {"Grep", [][2]string{{"pattern", "pattern"}, {"path", "dir_path"}, {"glob", "include_pattern"}}},
	"glob":              {"Glob", [][2]string{{"pattern", "pattern"}, {"path", "dir_path"}}},
	"google_web_search": {"WebSearch", [][2]string{{"query", "query"}}},
	"web_fetch":         {"WebFetch", [][2]string{{"prompt", "prompt"}, {"url", "url"}}},
	"invoke_agent":      {"Task", [][2]string{{"subagent_type", "agent_name"}, {"prompt", "prompt"}}},
}

// mapTool returns the name and input a tool call is stored with: the
// mapped keys in order, each with Gemini's raw JSON value.
func mapTool(name string, args parse.Object, raw json.RawMessage) (string, json.RawMessage) {
	m, ok := toolMaps[name]
	if !ok {
		if len(raw) == 0 {
			raw = json.RawMessage("{}")
		}
		return name, raw
	}
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

// exitCode finds the exit code Gemini's shell tool puts in its output
// ("Exit Code: 1"); Gemini records such a step as a success.
var exitCode = regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`)

// failedShell reports whether a shell result's output names a non-zero
// exit code.
func failedShell(output string) bool {
	m := exitCode.FindStringSubmatch(output)
	if m == nil {
		return false
	}
	n, err := strconv.Atoi(m[1])
	return err == nil && n != 0
}

// sortUsage orders rows by model, so a map's order does not show.
func sortUsage(us []store.Usage) {
	slices.SortFunc(us, func(a, b store.Usage) int { return strings.Compare(a.Model, b.Model) })
}
