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
		return tool, input, inputPath(input)
	}
	in := RenameKeys(input, m.Keys)
	return m.Name, in, inputPath(in)
}

// inputPath returns the file_path (else path) string member of an input.
func inputPath(input json.RawMessage) *string {
	o, _ := DecodeObject(input)
	if s, ok := o.FirstStr("file_path", "path"); ok && s != "" {
		return &s
	}
	return nil
}

// RenameKeys returns the JSON object raw with its keys renamed (old →
// new), its members in their order. Anything but an object comes back
// unchanged; an empty input becomes {}.
func RenameKeys(raw json.RawMessage, names map[string]string) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`)
	}
	if raw[0] != '{' || len(names) == 0 {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if _, err := d.Token(); err != nil {
		return raw
	}
	out := []byte{'{'}
	for d.More() {
		tok, err := d.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return raw
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return raw
		}
		if n, ok := names[key]; ok {
			key = n
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key) // a string always marshals
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}')
}
