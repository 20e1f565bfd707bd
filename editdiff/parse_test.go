package editdiff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// fileLines renders files as "path (op)" headers followed by their lines.
func fileLines(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, fmt.Sprintf("== %s (%s)", f.Path, f.Op))
		out = append(out, render(f.Lines)...)
	}
	return out
}

func TestParseApplyPatch(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []string
	}{
		{
			"UpdateWithWordSpans",
			"*** Begin Patch\n*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello\")\n     return\n*** End Patch\n",
			[]string{"== src/app.py (update)", "@@ def greet():", "-    print(\"[Hi]\")", "+    print(\"[Hello]\")", "     return"},
		},
		{
			"AddAndDelete",
			"*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Delete File: b.txt\n*** End Patch",
			[]string{"== a.txt (add)", "+one", "+two", "== b.txt (delete)"},
		},
		{
			"MoveAndBareBlankContext",
			"*** Begin Patch\n*** Update File: old.go\n*** Move to: new.go\n@@\n a\n\n-b\n+c\n*** End of File\n*** End Patch\n",
			[]string{"== old.go (move to new.go)", "@@", " a", " ", "-b", "+c"},
		},
		{"Garbage", "not a patch", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fileLines(ParsePatch(tt.patch))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParsePatch(%q) =\n%q\nwant\n%q", tt.patch, got, tt.want)
			}
		})
	}
}

func TestParseUnifiedDiff(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want []string
	}{
		{
			"HunksOnly",
			"@@ -1,3 +1,3 @@\n a\n-b = 1\n+b = 2\n c\n",
			[]string{"== main.go (update)", "@@ -1,3 +1,3 @@", " a", "-b = [1]", "+b = [2]", " c"},
		},
		{
			"GitHeadersTwoFiles",
			"diff --git a/x.txt b/x.txt\nindex 1..2 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-old\n+new\n" +
				"diff --git a/y.txt b/y.txt\n--- a/y.txt\n+++ b/y.txt\n@@ -2,2 +2,1 @@ ctx\n keep\n-gone\n",
			[]string{"== x.txt (update)", "@@ -1 +1 @@", "-old", "+new", "== y.txt (update)", "@@ -2,2 +2,1 @@ ctx", " keep", "-gone"},
		},
		{
			"DeletedLineLooksLikeHeader",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,1 @@\n--- not a header\n keep\n\\ No newline at end of file\n",
			[]string{"== f (update)", "@@ -1,2 +1,1 @@", "--- not a header", " keep"},
		},
		{
			"NewFile",
			"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
			[]string{"== new.txt (add)", "@@ -0,0 +1,2 @@", "+a", "+b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fileLines(ParseUnified(tt.diff, "main.go"))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseUnified(%q) =\n%q\nwant\n%q", tt.diff, got, tt.want)
			}
		})
	}
}

func TestFiles(t *testing.T) {
	tests := []struct {
		name     string
		filePath string
		input    any
		want     []string
	}{
		{
			"ClaudeEdit", "/col.go",
			map[string]any{"file_path": "/w/a.go", "old_string": "x := 1", "new_string": "x := 2"},
			[]string{"== /w/a.go ()", "-x := [1]", "+x := [2]"},
		},
		{
			"CodexPatch", "p.txt",
			map[string]any{"patch": "*** Begin Patch\n*** Add File: p.txt\n+hi\n*** End Patch"},
			[]string{"== p.txt (add)", "+hi"},
		},
		{
			"CodexUnifiedDiff", "/w/u.txt",
			map[string]any{"file_path": "/w/u.txt", "kind": "update", "unified_diff": "@@ -1 +1 @@\n-a\n+b\n"},
			[]string{"== /w/u.txt (update)", "@@ -1 +1 @@", "-a", "+b"},
		},
		{"NoDiff", "/w/m.go", map[string]any{"file_path": "/w/m.go"}, nil},
		{"NotAnObject", "", []int{1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(tt.input)
			if err != nil {
				t.Fatal(err)
			}
			got := fileLines(Files(tt.filePath, raw))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Files(%s) =\n%q\nwant\n%q", raw, got, tt.want)
			}
		})
	}
}
