package parse

import (
	"bytes"
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
	// A mapped input that is not valid JSON: unchanged, and no path read from it.
	if _, in, path := MapTool(table, "edit", json.RawMessage(`{"filePath":"/w/a.go",}`)); string(in) != `{"filePath":"/w/a.go",}` || path != nil {
		t.Errorf("MapTool(edit, broken) = %s, %v", in, path)
	}
	name, in, path = MapTool(table, "other", json.RawMessage(`{"path":"/w/b"}`))
	if name != "other" || string(in) != `{"path":"/w/b"}` || path == nil || *path != "/w/b" {
		t.Errorf("MapTool(other) = %s, %s, %v", name, in, path)
	}
}

// renameKeysJSON is RenameKeys as encoding/json's decoder does it: the
// oracle FuzzRenameKeys checks the splitter against.
func renameKeysJSON(raw json.RawMessage, names map[string]string) json.RawMessage {
	raw = bytes.TrimSpace(raw)
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
		k, _ := json.Marshal(key)
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}')
}

// FuzzRenameKeys: for every valid JSON object, RenameKeys writes what
// encoding/json's decoder reads, byte for byte; anything else comes back
// unchanged (or {} when empty).
func FuzzRenameKeys(f *testing.F) {
	for _, s := range []string{`{"filePath":"/a","oldString":"x\ny","newString":"y"}`, ` { "filePath" : { "filePath" : [1, 2.5e3, true] } , "z" : null } `,
		`{"file\u0050ath":"<&>","filePath":"dup","filePath":"dup2"}`, `{}`, `{"a":"\ud800","b":"é\u00e9"}`, `{"x":1}trail`, `[1]`, `{"a":}`} {
		f.Add(s)
	}
	names := map[string]string{"filePath": "file_path", "oldString": "old_string"}
	f.Fuzz(func(t *testing.T, in string) {
		got := RenameKeys(json.RawMessage(in), names)
		trimmed := bytes.TrimSpace([]byte(in))
		switch {
		case len(trimmed) == 0 || string(trimmed) == "null":
			if string(got) != `{}` {
				t.Fatalf("RenameKeys(%q) = %s, want {}", in, got)
			}
		case trimmed[0] == '{' && json.Valid(trimmed):
			if want := renameKeysJSON(json.RawMessage(in), names); !bytes.Equal(got, want) {
				t.Fatalf("RenameKeys(%q) = %s, want %s", in, got, want)
			}
		default:
			if !bytes.Equal(got, trimmed) {
				t.Fatalf("RenameKeys(%q) = %s, want it unchanged", in, got)
			}
		}
	})
}
