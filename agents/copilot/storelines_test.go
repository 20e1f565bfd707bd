package copilot

import (
	"bytes"
	"context"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// TestStoreLines: the captured store's sessions, mirrored as lines, are
// detected as Copilot's format and parse to the sessions' own Events;
// the lines are the same on every read.
func TestStoreLines(t *testing.T) {
	ss, err := ReadStore(context.Background(), capturedStore(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		lines := s.Lines()
		if len(lines) != 1+len(s.Turns) {
			t.Fatalf("%s: %d lines for %d turns", s.ID, len(lines), len(s.Turns))
		}
		p := NewParser(parse.Options{})
		var got []codec.Event
		for _, l := range lines {
			o, ok := parse.DecodeObject(l)
			if !ok || parse.DetectLine(o) != Format {
				t.Errorf("%s: line not detected as copilot's: %s", s.ID, l)
			}
			got = append(got, p.Feed(l)...)
		}
		got = append(got, p.Finish()...)
		want := s.Events()
		if len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d: %+v", s.ID, len(got), len(want), got)
		}
		for i := range want {
			if got[i].Kind != want[i].Kind || got[i].Content != want[i].Content || got[i].Text != want[i].Text || got[i].Success != want[i].Success || got[i].CWD != want[i].CWD {
				t.Errorf("%s: event %d %+v, want %+v", s.ID, i, got[i], want[i])
			}
		}
		again := s.Lines()
		for i := range lines {
			if !bytes.Equal(lines[i], again[i]) {
				t.Errorf("%s: line %d differs between two calls", s.ID, i)
			}
		}
	}
}
