package editdiff

import "testing"

func TestPatchHeader(t *testing.T) {
	for _, tc := range []struct {
		line, path, op string
		ok             bool
	}{
		{"*** Add File: a.go", "a.go", PatchAdd, true},
		{"*** Update File: src/b.rs \r", "src/b.rs", PatchUpdate, true},
		{"*** Delete File: c", "c", PatchDelete, true},
		{"*** Move to: d/e", "d/e", PatchMove, true},
		{" *** Add File: ctx.go", "", "", false}, // a context line of a patch body
		{"*** Begin Patch", "", "", false},
	} {
		path, op, ok := PatchHeader(tc.line)
		if path != tc.path || op != tc.op || ok != tc.ok {
			t.Errorf("PatchHeader(%q) = %q, %q, %v; want %q, %q, %v", tc.line, path, op, ok, tc.path, tc.op, tc.ok)
		}
	}
}

func TestShellPatch(t *testing.T) {
	cmd := "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nPATCH"
	if got, want := ShellPatch(cmd), "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"; got != want {
		t.Errorf("ShellPatch = %q, want %q", got, want)
	}
	if got := ShellPatch("ls -la"); got != "" {
		t.Errorf("ShellPatch(ls) = %q, want \"\"", got)
	}
	if files := ParsePatch(ShellPatch(cmd)); len(files) != 1 || files[0].Path != "a" || len(files[0].Lines) != 1 {
		t.Errorf("ParsePatch(ShellPatch) = %+v", files)
	}
}
