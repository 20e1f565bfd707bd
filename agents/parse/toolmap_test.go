package parse

import (
	"encoding/json"
	"testing"
)

func TestRenameKeys(t *testing.T) {
	names := map[string]string{"filePath": "file_path", "oldString": "old_string"}
	for _, c := range []struct{ name, in, want string }{
		{"Renamed", `{"filePath":"/a","oldString":"x","newString":"y"}`, `{"file_path":"/a","old_string":"x","newString":"y"}`},
		{"OrderKept", `{"z":1,"filePath":"/a"}`, `{"z":1,"file_path":"/a"}`},
		{"Nested", `{"filePath":{"filePath":1}}`, `{"file_path":{"filePath":1}}`},
		{"Empty", ``, `{}`},
		{"Null", `null`, `{}`},
		{"NotObject", `[1,2]`, `[1,2]`},
		{"Broken", `{"filePath":`, `{"filePath":`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := string(RenameKeys(json.RawMessage(c.in), names)); got != c.want {
				t.Errorf("RenameKeys(%s) = %s, want %s", c.in, got, c.want)
			}
		})
	}
}

func TestMapTool(t *testing.T) {
	table := map[string]ToolMap{"edit": {Name: "Edit", Keys: map[string]string{"filePath": "file_path"}}}
	name, in, path := MapTool(table, "edit", json.RawMessage(`{"filePath":"/w/a.go"}`))
	if name != "Edit" || string(in) != `{"file_path":"/w/a.go"}` || path == nil || *path != "/w/a.go" {
		t.Errorf("MapTool(edit) = %s, %s, %v", name, in, path)
	}
	name, in, path = MapTool(table, "other", json.RawMessage(`{"path":"/w/b"}`))
	if name != "other" || string(in) != `{"path":"/w/b"}` || path == nil || *path != "/w/b" {
		t.Errorf("MapTool(other) = %s, %s, %v", name, in, path)
	}
}
