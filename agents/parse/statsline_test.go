package parse

import (
	"slices"
	"testing"
)

func TestStatsLine(t *testing.T) {
	var s Stats
	for _, tc := range []struct {
		line string
		ok   bool
	}{{`{"a":1}`, true}, {"  \t", false}, {`[1]`, false}, {`{"b":`, false}, {`{}`, true}} {
		if _, ok := s.Line([]byte(tc.line)); ok != tc.ok {
			t.Errorf("Line(%q) ok = %v, want %v", tc.line, ok, tc.ok)
		}
	}
	if s.Lines != 5 || s.Malformed != 2 || !slices.Equal(s.BadLines, []int{3, 4}) {
		t.Errorf("stats %+v, want 5 lines, lines 3 and 4 malformed (a blank one is not)", s)
	}
}
