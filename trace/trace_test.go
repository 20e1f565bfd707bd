package trace

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestMarkParsesBack(t *testing.T) {
	var buf bytes.Buffer
	defer setForTest(&buf)()
	at := time.Unix(1700000000, 123456789)
	MarkAt(at, "ready", "switch S12")
	Markf("input", "key %s", "ctrl+k")
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2: %q", len(lines), buf.String())
	}
	l, ok := Parse(lines[0])
	if !ok || !l.Time.Equal(at) || l.Point != "ready" || l.Detail != "switch S12" {
		t.Errorf("Parse(%q) = %+v, %v, want ready at %v with detail %q", lines[0], l, ok, at, "switch S12")
	}
	if l, ok := Parse(lines[1]); !ok || l.Point != "input" || l.Detail != "key ctrl+k" {
		t.Errorf("Parse(%q) = %+v, %v, want input with detail %q", lines[1], l, ok, "key ctrl+k")
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "lazuli-trace ", "lazuli-trace x ready a", "other 1 ready a", "lazuli-trace 12"} {
		if l, ok := Parse(s); ok {
			t.Errorf("Parse(%q) = %+v, true, want false", s, l)
		}
	}
}

func TestOffWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	restore := setForTest(&buf)
	on = false
	Mark("ready", "x")
	restore()
	if buf.Len() != 0 {
		t.Errorf("Mark with tracing off wrote %q", buf.String())
	}
}

func TestEnabled(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "1": true, "yes": true} {
		if got := enabled(v); got != want {
			t.Errorf("enabled(%q) = %v, want %v", v, got, want)
		}
	}
}
