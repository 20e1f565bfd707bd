package codec

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// The old compaction of tool results, which split every line (rustLines),
// is the oracle of the one that reads only the lines it keeps.
func splitCompactToolResult(tool, content string) string {
	content = cutReminder(content)
	lines := rustLines(content)
	n := len(lines)
	switch tool {
	case "Read", "read":
		if n <= 2 {
			return content
		}
		last := ""
		for i := n - 1; i >= 0; i-- {
			if !IsBlank(lines[i]) {
				last = lines[i]
				break
			}
		}
		return lines[0] + "\n  (" + strconv.Itoa(n) + " lines)\n" + last
	case "Bash", "bash":
		var keep []string
		for i := n - 1; i >= 0 && len(keep) < 2; i-- {
			if !IsBlank(lines[i]) {
				keep = append([]string{lines[i]}, keep...)
			}
		}
		return strings.Join(keep, "\n")
	case "Glob", "glob":
		return strconv.Itoa(n) + " files"
	case "Task", "task":
		if n <= 5 {
			return content
		}
		return strings.Join(lines[:5], "\n") + "\n  (+" + strconv.Itoa(n-5) + " more lines)"
	}
	if n <= 3 {
		return content
	}
	return strings.Join(lines[:3], "\n") + "\n  (+" + strconv.Itoa(n-3) + " more)"
}

func splitWritePurpose(lines []string) (string, bool) {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		for _, p := range []string{"//", "#", "/*", `"""`, "///", "//!"} {
			if strings.HasPrefix(t, p) {
				return t, true
			}
		}
	}
	if len(lines) == 0 || lines[0] == "" {
		return "", false
	}
	return strings.TrimSpace(lines[0]), true
}

var lineCases = []string{
	"", "\n", "\n\n", "a", "a\n", "a\r\n", "a\r\nb\r\n", "\r", "a\r\r\nb", "one\ntwo\nthree\nfour\n\n  \n",
	"  \n\t\n", "x\n\n\ny\n \n", strings.Repeat("line\n", 40) + "last", "#!/bin/sh\nset -e\n# purpose\n",
	"package x\n\n// Doc says\nfunc f() {}\n", "   \n// later\n", "a\nb<system-reminder>c\nd\ne\nf", "\r\n\r\n",
}

// TestCompactToolResultLines: each tool's compaction reads the lines it
// keeps as splitting them all did.
func TestCompactToolResultLines(t *testing.T) {
	for _, tool := range []string{"Read", "bash", "Glob", "Task", "Edit", "other"} {
		for _, c := range lineCases {
			if got, want := compactToolResult(tool, c), splitCompactToolResult(tool, c); got != want {
				t.Errorf("compactToolResult(%q, %q) = %q, want %q", tool, c, got, want)
			}
		}
	}
	for _, c := range lineCases {
		p, ok := writePurpose(c)
		wp, wok := splitWritePurpose(rustLines(c))
		if p != wp || ok != wok || lineCount(c) != len(rustLines(c)) {
			t.Errorf("%q: purpose %q %v, want %q %v; %d lines, want %d", c, p, ok, wp, wok, lineCount(c), len(rustLines(c)))
		}
	}
}

func FuzzCompactToolResultLines(f *testing.F) {
	for _, c := range lineCases {
		f.Add(uint8(0), c)
	}
	tools := []string{"Read", "read", "Bash", "bash", "Glob", "glob", "Task", "task", "Edit", "x"}
	f.Fuzz(func(t *testing.T, tool uint8, c string) {
		name := tools[int(tool)%len(tools)]
		if got, want := compactToolResult(name, c), splitCompactToolResult(name, c); got != want {
			t.Errorf("compactToolResult(%q, %q) = %q, want %q", name, c, got, want)
		}
		p, ok := writePurpose(c)
		if wp, wok := splitWritePurpose(rustLines(c)); p != wp || ok != wok {
			t.Errorf("writePurpose(%q) = %q %v, want %q %v", c, p, ok, wp, wok)
		}
	})
}

// FuzzJSONString: a Write's content is decoded as encoding/json decodes it,
// whatever the literal (escapes, surrogates, invalid UTF-8, bad input).
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00 \ud800"`, "\"\xff\"", `"\u00e9\t\"x\""`, `"unterminated`, `"a" `, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		werr := json.Unmarshal(raw, &want)
		got, ok := jsonString(raw)
		if len(raw) == 0 || raw[0] != '"' {
			if ok {
				t.Errorf("jsonString(%q) decoded a non-string", raw)
			}
			return
		}
		if ok != (werr == nil) || got != want {
			t.Errorf("jsonString(%q) = %q %v, encoding/json %q %v", raw, got, ok, want, werr)
		}
	})
}
