package printable

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// hostile holds the sequences the probe stored: a window title (OSC 0 …
// BEL), clear screen, an OSC 8 hyperlink, NUL, a CR that overwrites the
// line, C1 CSI, a right-to-left override, and a byte that is not UTF-8.
const hostile = "title\x1b]0;pwned\x07 clear\x1b[2J\x1b[H link\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ " +
	"nul\x00 over\rwrite csi\u009b31m rlo\u202egnp.exe bad\xff\xfe del\x7f"

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text, ünïcode ✓ and\ttabs\nand lines\n", "plain text, ünïcode ✓ and\ttabs\nand lines\n"},
		{"crlf\r\nlines\r\n", "crlf\nlines\n"},
		{"lone\rcr", `lone\x0dcr`},
		{"esc\x1b[31mred", `esc\x1b[31mred`},
		{"bel\x07", `bel\x07`},
		{"nul\x00", `nul\x00`},
		{"del\x7f", `del\x7f`},
		{"c1\u009b", `c1\u009b`},
		{"rlo\u202eevil", `rlo\u202eevil`},
		{"isolate\u2066x\u2069", `isolate\u2066x\u2069`},
		{"lrm\u200erlm\u200falm\u061c", `lrm\u200erlm\u200falm\u061c`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{`C:\x1b\path`, `C:\x1b\path`}, // a backslash is left alone
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"name", "name"},
		{"two\nlines", `two\x0alines`},
		{"tab\tbed", `tab\x09bed`},
		{"crlf\r\n", `crlf\x0d\x0a`},
		{"title\x1b]0;x\x07", `title\x1b]0;x\x07`},
	}
	for _, c := range cases {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestNoControlLeft checks the promise on hostile text: nothing a terminal
// acts on survives, in Text or Line.
func TestNoControlLeft(t *testing.T) {
	text, line := Text(hostile), Line(hostile+"\n\t")
	if Text(text) != text || !clean(text, true) {
		t.Errorf("Text left a control character in %q", text)
	}
	if Line(line) != line || !clean(line, false) {
		t.Errorf("Line left a control character in %q", line)
	}
	for _, c := range []string{"\x1b", "\x07", "\x00", "\r", "\u009b", "\u202e", "\xff"} {
		if strings.Contains(text, c) || strings.Contains(line, c) {
			t.Errorf("%q survived", c)
		}
	}
}

// TestCleanIsUnchanged checks that clean text comes back as the same
// string, without a copy.
func TestCleanIsUnchanged(t *testing.T) {
	s := strings.Repeat("ordinary code() { return x; }\n\t", 10)
	if got := Text(s); got != s {
		t.Fatalf("Text changed clean text: %q", got)
	}
	if n := testing.AllocsPerRun(10, func() { _ = Text(s) }); n != 0 {
		t.Errorf("Text allocated %.0f times for clean text", n)
	}
}

// TestWriterSplits writes hostile text in two pieces at every split point
// (a rune, an escape or CR LF cut in half) and wants what Text gives.
func TestWriterSplits(t *testing.T) {
	in := hostile + " crlf\r\n é✓\u202e\r"
	want := Text(in)
	for cut := 0; cut <= len(in); cut++ {
		var b bytes.Buffer
		w := NewWriter(&b)
		for _, part := range []string{in[:cut], in[cut:]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Fatalf("split at %d: %q, want %q", cut, b.String(), want)
		}
	}
}

// TestJSONWriter checks that JSON keeps its meaning: the escapes it adds
// decode to the same string, and nothing else changes.
func TestJSONWriter(t *testing.T) {
	in := map[string]string{"k": "csi\u009b31m rlo\u202e ls\u2028 esc\x1b tab\t é✓"}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut <= len(raw); cut++ {
		var b bytes.Buffer
		w := NewJSONWriter(&b)
		w.Write(raw[:cut])
		w.Write(raw[cut:])
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if Text(out) != out {
			t.Fatalf("split at %d: a control character is left in %q", cut, out)
		}
		var back map[string]string
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["k"] != in["k"] {
			t.Fatalf("split at %d: %q decodes to %q (%v)", cut, out, back["k"], err)
		}
	}
}
