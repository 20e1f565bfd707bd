package agents

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestOutside: a path made relative leads out of its folder with either
// separator, so a relative permission pattern never matches a file
// outside the worktree on Windows, where filepath.Rel gives `..\x`.
func TestOutside(t *testing.T) {
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{"..", true},
		{"../x", true},
		{`..\x`, true},
		{`..\..\x\y`, true},
		{".", false},
		{"x", false},
		{"x/y", false},
		{`x\y`, false},
		{"..x", false},
		{"x/..y", false},
	} {
		if got := outside(tt.rel); got != tt.want {
			t.Errorf("outside(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

// TestSplitRoot: an absolute path splits into its root and names (on
// Windows the root is the drive's, tested under Wine by the Windows build
// of this test).
func TestSplitRoot(t *testing.T) {
	p := filepath.Join(string(filepath.Separator), "a", "b")
	want := []string{"", "a", "b"}
	if vol := filepath.VolumeName(p); vol != "" {
		t.Fatalf("volume %q on a path without one", vol)
	}
	root, names := splitRoot(p)
	if root != string(filepath.Separator) || !reflect.DeepEqual(names, want) {
		t.Errorf("splitRoot(%q) = %q, %q; want %q, %q", p, root, names, string(filepath.Separator), want)
	}
}
