//go:build windows

package agents

import (
	"reflect"
	"testing"
)

// TestSplitRootWindows: a drive letter or a share is the root, not a name
// below "/" (which made C:\x resolve to \C:\x).
func TestSplitRootWindows(t *testing.T) {
	for _, tt := range []struct {
		path, root string
		names      []string
	}{
		{`C:\work\x`, `C:\`, []string{"", "work", "x"}},
		{`Z:\`, `Z:\`, []string{"", ""}},
		{`\\server\share\d`, `\\server\share\`, []string{"", "d"}},
	} {
		root, names := splitRoot(tt.path)
		if root != tt.root || !reflect.DeepEqual(names, tt.names) {
			t.Errorf("splitRoot(%q) = %q, %q; want %q, %q", tt.path, root, names, tt.root, tt.names)
		}
	}
}
