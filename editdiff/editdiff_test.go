package editdiff

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		input string
		want  Input
		ok    bool
	}{
		{`{"file_path":"a.go","old_string":"x","new_string":"y"}`, Input{Path: "a.go", OldString: s("x"), NewString: s("y")}, true},
		{`{"path":"b.go","unified_diff":"@@ -1 +1 @@","kind":"add"}`, Input{Path: "b.go", UnifiedDiff: "@@ -1 +1 @@", Kind: "add"}, true},
		{`{"content":"hi"}`, Input{Path: "col.go", Content: s("hi")}, true},
		{`"*** Begin Patch\n*** End Patch"`, Input{Path: "col.go", Patch: "*** Begin Patch\n*** End Patch"}, true},
		{`"just text"`, Input{}, false},
		{`[1,2]`, Input{}, false},
	} {
		got, ok := Parse("col.go", json.RawMessage(tc.input))
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%s) = %+v, %v; want %+v, %v", tc.input, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLines(t *testing.T) {
	got := Lines("a\nb\r\nc", "a\nB\nc\n")
	want := []Line{{Op: Equal, Text: "a"}, {Op: Delete, Text: "b"}, {Op: Insert, Text: "B"}, {Op: Equal, Text: "c"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Lines = %+v, want %+v", got, want)
	}
	if got := SplitLines("x\n"); len(got) != 1 || got[0] != "x" {
		t.Errorf("SplitLines(x\\n) = %q", got)
	}
}
