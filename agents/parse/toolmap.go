package parse

import (
	"bytes"
	"encoding/json"
)

// ToolMap says how one agent tool is shown as AZUREAL's tool: its name
// (Claude's: Read, Write, Edit, Bash, Grep, Glob, …) and the renames of its
// input keys to Claude's (filePath → file_path, oldString → old_string, …),
// so Edit cards, diffs, key parameters and the insight index read every
// agent's calls alike.
type ToolMap struct {
	Name string
	Keys map[string]string
}

// MapTool returns the AZUREAL name of tool, its input with keys renamed and
// the call's file path (the renamed file_path or path member; nil when
// none). A tool missing from table keeps its name and input.
func MapTool(table map[string]ToolMap, tool string, input json.RawMessage) (string, json.RawMessage, *string) {
	m, ok := table[tool]
	if !ok {
		return tool, input, inputPath(input, false)
	}
	in, valid := renameKeys(input, m.Keys)
	return m.Name, in, inputPath(in, valid)
}

// inputPath returns the file_path (else path) string member of an input,
// validating it unless valid says it is known to be valid JSON.
func inputPath(input json.RawMessage, valid bool) *string {
	o, _ := objectMembers(input, valid) // strings come out as copies: input may be kept
	if s, ok := o.FirstStr("file_path", "path"); ok && s != "" {
		return &s
	}
	return nil
}

// RenameKeys returns the JSON object raw with its keys renamed (old →
// new), its members in their order. Anything but an object comes back
// unchanged; an empty input becomes {}. raw is validated once, then its
// members are only split (a Write's input holds a whole file).
func RenameKeys(raw json.RawMessage, names map[string]string) json.RawMessage {
	out, _ := renameKeys(raw, names)
	return out
}

// renameKeys is RenameKeys, and whether what it returns is known to be
// valid JSON (it validated it, or wrote it).
func renameKeys(raw json.RawMessage, names map[string]string) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`), true
	}
	if raw[0] != '{' || len(names) == 0 || !ValidJSON(raw) {
		return raw, false
	}
	out := make([]byte, 1, len(raw)+16)
	out[0] = '{'
	i := skipWS(raw, 1)
	if raw[i] == '}' {
		return append(out, '}'), true
	}
	for {
		key, start, _ := memberKey(raw, i, true) // valid: every member reads
		end := valueEnd(raw, start)
		if n, ok := names[key]; ok {
			key = n
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key) // a string always marshals
		out = append(append(append(out, k...), ':'), raw[start:end]...)
		var closed bool
		if i, closed = afterElement(raw, end, '}'); closed {
			return append(out, '}'), true
		}
	}
}
