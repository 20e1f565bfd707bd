package codec

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CompactEvent applies AZUREAL's ingestion-time compaction (spec §4): user
// messages lose injected context, tool results are shortened by tool, and
// tool-call inputs keep only the keys worth keeping. It is applied once, when
// an event is stored; it is not idempotent.
func CompactEvent(e Event) Event {
	switch e.Kind {
	case KindUserMessage:
		e.Content, _ = SanitizeUserMessage(e.Content)
	case KindToolResult:
		e.Content = compactToolResult(e.ToolName, e.Content)
	case KindToolCall:
		e.Input = compactToolInput(e.ToolName, e.Input)
	}
	return e
}

// CharLen is the char_len column of a compacted event (spec §2.5): the UTF-8
// byte length of the fields that feed the context meter.
func CharLen(e Event) int64 {
	switch e.Kind {
	case KindUserMessage, KindToolResult, KindPlan:
		return int64(len(e.Content))
	case KindAssistantText:
		return int64(len(e.Text))
	case KindHook:
		return int64(len(e.Output))
	case KindCommand:
		return int64(len(e.Name))
	case KindToolCall:
		js, err := SerdeJSON(e.Input)
		if err != nil {
			js = []byte("null")
		}
		return int64(len(e.ToolName) + len(js))
	}
	return 0
}

// rustLines splits s like Rust's str::lines: on '\n', dropping one trailing
// '\r' per line and no empty last line after a final '\n'.
func rustLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// TrimEnd is Rust's str::trim_end (Unicode white space).
func TrimEnd(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// cutReminder keeps the text before the first <system-reminder>, right-trimmed.
func cutReminder(s string) string {
	if i := strings.Index(s, "<system-reminder>"); i >= 0 {
		s = s[:i]
	}
	return TrimEnd(s)
}

func IsBlank(s string) bool { return strings.TrimSpace(s) == "" }

// compactToolResult shortens a tool result by tool name (spec §4.2). It
// reads only the lines it keeps and counts the rest (lineCount): a Read's
// or a Bash's output is often thousands of lines, and splitting it into a
// slice of them was most of compacting it.
func compactToolResult(tool, content string) string {
	content = cutReminder(content)
	n := lineCount(content)
	switch tool {
	case "Read", "read":
		if n <= 2 {
			return content
		}
		last := ""
		if l := lastNonBlank(content, 1); len(l) == 1 {
			last = l[0]
		}
		return firstLines(content, 1) + "\n  (" + strconv.Itoa(n) + " lines)\n" + last
	case "Bash", "bash":
		return strings.Join(lastNonBlank(content, 2), "\n")
	case "Glob", "glob":
		return strconv.Itoa(n) + " files"
	case "Task", "task":
		if n <= 5 {
			return content
		}
		return firstLines(content, 5) + "\n  (+" + strconv.Itoa(n-5) + " more lines)"
	}
	if n <= 3 {
		return content
	}
	return firstLines(content, 3) + "\n  (+" + strconv.Itoa(n-3) + " more)"
}

// lineCount is len(rustLines(s)).
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// firstLines is strings.Join(rustLines(s)[:k], "\n"), for s of more than k
// lines.
func firstLines(s string, k int) string {
	var b strings.Builder
	for i := range k {
		j := strings.IndexByte(s, '\n')
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimSuffix(s[:j], "\r"))
		s = s[j+1:]
	}
	return b.String()
}

// lastNonBlank returns the last k lines of rustLines(s) that are not blank
// (fewer when s has fewer), in their order.
func lastNonBlank(s string, k int) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	var out []string
	for len(out) < k {
		j := strings.LastIndexByte(s, '\n')
		if line := strings.TrimSuffix(s[j+1:], "\r"); !IsBlank(line) {
			out = append(out, line)
		}
		if j < 0 {
			break
		}
		s = s[:j]
	}
	slices.Reverse(out)
	return out
}

// keptInputKeys lists, per tool, the input keys compaction keeps (spec §4.3).
var keptInputKeys = map[string][]string{
	"Read": {"file_path", "path"}, "read": {"file_path", "path"},
	"Bash": {"command"}, "bash": {"command"},
	"Glob": {"pattern"}, "glob": {"pattern"}, "Grep": {"pattern"}, "grep": {"pattern"},
	"WebFetch": {"url"}, "webfetch": {"url"},
	"WebSearch": {"query"}, "websearch": {"query"},
	"Agent": {"subagent_type", "description"}, "agent": {"subagent_type", "description"},
	"Task": {"subagent_type", "description"}, "task": {"subagent_type", "description"},
	"LSP": {"operation", "filePath"}, "lsp": {"operation", "filePath"},
}

var defaultKeptInputKeys = []string{"file_path", "path", "command", "query", "pattern"}

// compactToolInput reduces a tool call's input (spec §4.3). The result is in
// serde's compact form.
func compactToolInput(tool string, input json.RawMessage) json.RawMessage {
	switch tool {
	case "Edit", "edit":
		js, err := SerdeJSON(input)
		if err != nil {
			return json.RawMessage("null")
		}
		return js
	case "Write", "write":
		return compactWriteInput(input)
	}
	keys, ok := keptInputKeys[tool]
	if !ok {
		keys = defaultKeptInputKeys
	}
	members, _ := objectMembers(input)
	var obj objectBuilder
	for _, k := range keys {
		if v, ok := members.Get(k); ok {
			obj.addRaw(k, v)
		}
	}
	return obj.bytes()
}

// compactWriteInput replaces a Write call's content by its line count and
// purpose line.
func compactWriteInput(input json.RawMessage) json.RawMessage {
	members, _ := objectMembers(input)
	var obj objectBuilder
	if v, ok := members.Get("file_path"); ok {
		obj.addRaw("file_path", v)
	} else if v, ok := members.Get("path"); ok {
		obj.addRaw("file_path", v)
	}
	if raw, ok := members.Get("content"); ok {
		if content, ok := jsonString(raw); ok {
			obj.addRaw("_lines", json.RawMessage(strconv.Itoa(lineCount(content))))
			if p, ok := writePurpose(content); ok {
				obj.addRaw("_purpose", AppendJSONString(nil, p))
			}
		}
	}
	return obj.bytes()
}

// jsonString decodes raw as one JSON string, as encoding/json does: the
// fast parser's decoding when it takes raw whole and the result is valid
// UTF-8, else encoding/json's (which replaces what the fast parser gives
// up on).
func jsonString(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	p := fastParser{b: bytes.Clone(raw)}
	if b, ok := p.raw(); ok && p.i == len(p.b) && utf8.Valid(b) {
		return string(b), true
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// writePurpose is the first comment-like line of a written file (its
// lines as rustLines splits them), else its first line, trimmed; ok is
// false when that line is empty. A first line of only white space gives ok
// and "", as in AZUREAL, which tests the line before trimming it.
func writePurpose(content string) (purpose string, ok bool) {
	if content == "" {
		return "", false
	}
	rest := strings.TrimSuffix(content, "\n")
	for {
		line, more := rest, false
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			line, rest, more = rest[:j], rest[j+1:], true
		}
		t := strings.TrimSpace(line)
		for _, p := range []string{"//", "#", "/*", `"""`, "///", "//!"} {
			if strings.HasPrefix(t, p) {
				return t, true
			}
		}
		if !more {
			break
		}
	}
	first, _, _ := strings.Cut(strings.TrimSuffix(content, "\n"), "\n")
	if first = strings.TrimSuffix(first, "\r"); first == "" {
		return "", false
	}
	return strings.TrimSpace(first), true
}

// member is one key of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

type members []member

// get returns the value of key; with duplicate keys the last wins, as in serde.
func (ms members) Get(key string) (json.RawMessage, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return ms[i].value, true
		}
	}
	return nil, false
}

// objectMembers returns the members of a JSON object in order, or nil when
// raw is not an object.
func objectMembers(raw json.RawMessage) (members, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	if ms, ok := canonMembers(raw); ok {
		return ms, true
	}
	return decodedMembers(raw)
}

// decodedMembers is objectMembers with encoding/json's decoder, for raw
// that starts with '{'.
func decodedMembers(raw json.RawMessage) (members, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil {
		return nil, false
	}
	var ms members
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return nil, false
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		ms = append(ms, member{key, v})
	}
	return ms, true
}

// objectBuilder writes a JSON object in serde's compact form.
type objectBuilder struct{ buf []byte }

func (o *objectBuilder) addRaw(key string, value json.RawMessage) {
	if o.buf == nil {
		o.buf = append(o.buf, '{')
	} else {
		o.buf = append(o.buf, ',')
	}
	o.buf = AppendJSONString(o.buf, key)
	o.buf = append(o.buf, ':')
	mark := len(o.buf)
	var err error
	if o.buf, err = appendSerdeValue(o.buf, value); err != nil {
		o.buf = append(o.buf[:mark], "null"...)
	}
}

func (o *objectBuilder) bytes() json.RawMessage {
	if o.buf == nil {
		return json.RawMessage("{}")
	}
	return append(o.buf, '}')
}
