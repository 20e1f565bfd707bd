package editdiff

import (
	"encoding/json"
	"strings"
	"testing"
)

func unifiedText(d []Line) string {
	var b strings.Builder
	for _, l := range d {
		b.WriteByte(" -+@*"[l.Op])
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestUnified(t *testing.T) {
	for _, tc := range []struct {
		name, tool, input, want string
	}{
		{"claude edit", "Edit", `{"file_path":"/a/x.go","old_string":"a\nb\n","new_string":"a\nc\n"}`,
			"*--- a/a/x.go\n*+++ b/a/x.go\n@@@ -1,2 +1,2 @@\n  a\n--b\n++c\n"},
		{"codex patch", "Edit", `{"patch":"*** Begin Patch\n*** Update File: x.go\n@@\n-a\n+b\n*** End Patch"}`,
			"**** Begin Patch\n**** Update File: x.go\n@@@\n--a\n++b\n**** End Patch\n"},
		{"codex patch string", "apply_patch", `"*** Begin Patch\n*** Add File: y.go\n+package y\n*** End Patch"`,
			"**** Begin Patch\n**** Add File: y.go\n++package y\n**** End Patch\n"},
		{"codex unified diff", "Edit", `{"path":"z.go","unified_diff":"@@ -1 +1 @@\n-x\n+y\n","kind":"update"}`,
			"*--- a/z.go\n*+++ b/z.go\n@@@ -1 +1 @@\n--x\n++y\n"},
		{"write content", "Write", `{"file_path":"n.txt","content":"hello\n"}`,
			"*--- /dev/null\n*+++ b/n.txt\n@@@ -0,0 +1,1 @@\n++hello\n"},
		{"compacted write", "Write", `{"file_path":"n.txt","_lines":3}`, ""},
		{"not an edit", "Edit", `{"file_path":"m.go"}`, ""},
		{"garbage", "Edit", `[1,2`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unifiedText(Unified(tc.tool, "", json.RawMessage(tc.input))); got != tc.want {
				t.Errorf("Unified(%s) =\n%s\nwant\n%s", tc.input, got, tc.want)
			}
		})
	}
}
