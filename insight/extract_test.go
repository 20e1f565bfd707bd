package insight

import "testing"

// TestRelPathOutside: a path outside every folder keeps its absolute
// path, also where filepath.Rel would give `..\x` (Windows); a name
// holding a backslash is taken as one outside, never as one inside.
func TestRelPathOutside(t *testing.T) {
	for _, tt := range []struct {
		rel  string
		want bool
	}{{"..", true}, {"../x", true}, {`..\x`, true}, {"x", false}, {`x\y`, false}, {"..x", false}} {
		if got := outside(tt.rel); got != tt.want {
			t.Errorf("outside(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}
