package codex

// This file holds what the two Codex parsers share (spec §5.7): the mapping of Codex tool calls to AZUREAL's tool
// names and inputs, and the normalization of tool outputs.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/editdiff"
)

// cxField is one member of a JSON object whose key order matters.
type cxField struct {
	key string
	val json.RawMessage
}

// cxFields decodes the object raw into its members, in order.
func cxFields(raw []byte) ([]cxField, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var fields []cxField
	for d.More() {
		tok, err := d.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		fields = append(fields, cxField{key, v})
	}
	return fields, true
}

// cxObject encodes fields as a JSON object.
func cxObject(fields ...cxField) json.RawMessage {
	b := []byte{'{'}
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, cxString(f.key)...)
		b = append(b, ':')
		b = append(b, f.val...)
	}
	return append(b, '}')
}

// cxString encodes s as a JSON string.
func cxString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// cxWithString returns the object raw with key set to val, in place if the
// key exists and appended otherwise. A value that is not an object is
// replaced by {key: val}, as AZUREAL's insert_command_field does.
func cxWithString(raw json.RawMessage, key, val string) json.RawMessage {
	fields, _ := cxFields(raw)
	set := false
	for i := range fields {
		if fields[i].key == key {
			fields[i].val, set = cxString(val), true
		}
	}
	if !set {
		fields = append(fields, cxField{key, cxString(val)})
	}
	return cxObject(fields...)
}

// codexCall is what a tool call leaves for its result: the mapped tool name
// and file path.
type codexCall struct {
	tool     string
	filePath *string
}

// codexTools maps Codex function and custom tool calls and their outputs,
// remembering each call by id for its result.
type codexTools struct {
	calls map[string]codexCall
}

// call maps a function_call or custom_tool_call payload to a ToolCall.
func (t *codexTools) call(payload parse.Object, defaultName string) codec.Event {
	id := payload.Str("call_id")
	name, ok := payload.StrOK("name")
	if !ok {
		name = defaultName
	}
	raw := codexRawInput(payload)
	tool, filePath := codexToolName(name, raw)
	if t.calls == nil {
		t.calls = make(map[string]codexCall)
	}
	t.calls[id] = codexCall{tool, filePath}
	return codec.ToolCall(id, tool, filePath, codexToolInput(name, raw))
}

// result maps a *_call_output payload to a ToolResult carrying its call's
// name and path (fallback when the call was not seen).
func (t *codexTools) result(payload parse.Object, fallback string) codec.Event {
	id := payload.Str("call_id")
	c, ok := t.calls[id]
	if !ok {
		c = codexCall{tool: fallback}
	}
	content, isErr := codexNormalizeOutput(codexOutputText(payload["output"]))
	return codec.ToolResult(id, c.tool, c.filePath, content, isErr)
}

// codexRawInput returns a call's argument text: arguments (a JSON string,
// or an object as such) or else input (the free-form custom tool text).
func codexRawInput(payload parse.Object) string {
	if s, ok := payload.StrOK("arguments"); ok {
		return s
	}
	if payload.Obj("arguments") != nil {
		return string(bytes.TrimSpace(payload["arguments"]))
	}
	return payload.Str("input")
}

// codexArgs parses a call's argument text as JSON, {} when it is not JSON
// that serde_json reads (AZUREAL's from_str(..).unwrap_or({})): a number
// out of an f64's range makes it not JSON too.
func codexArgs(raw string) json.RawMessage {
	b := bytes.TrimSpace([]byte(raw))
	if len(b) == 0 || !parse.ValidJSON(b) {
		return json.RawMessage(`{}`)
	}
	return b
}

// codexToolName maps a Codex tool to AZUREAL's name and file path.
func codexToolName(name, raw string) (string, *string) {
	switch name {
	case "shell_command", "shell":
		args, _ := parse.DecodeObject(codexArgs(raw))
		if w, ok := args.StrOK("workdir"); ok {
			return "Bash", &w
		}
		return "Bash", nil
	case "exec_command", "write_stdin":
		return "Bash", nil
	case "apply_patch":
		return "Edit", codexPatchPath(raw)
	}
	return name, nil
}

// codexToolInput builds the ToolCall input for a Codex tool.
func codexToolInput(name, raw string) json.RawMessage {
	switch name {
	case "apply_patch":
		return cxObject(cxField{"patch", cxString(raw)})
	case "exec_command":
		args := codexArgs(raw)
		o, _ := parse.DecodeObject(args)
		cmd, ok := o.StrOK("command")
		if !ok {
			cmd = o.Str("cmd")
		}
		return cxWithString(args, "command", cmd)
	case "write_stdin":
		args := codexArgs(raw)
		o, _ := parse.DecodeObject(args)
		return cxWithString(args, "command", codexDescribeStdin(o))
	case "shell":
		args := codexArgs(raw)
		o, _ := parse.DecodeObject(args)
		var argv []string
		if json.Unmarshal(o["command"], &argv) != nil {
			return args
		}
		return cxWithString(args, "command", codexShellJoin(argv))
	}
	return codexArgs(raw)
}

// codexPatchPath returns the first file an apply_patch text names.
func codexPatchPath(patch string) *string {
	for line := range strings.SplitSeq(patch, "\n") {
		if path, op, ok := editdiff.PatchHeader(line); ok && op != editdiff.PatchMove {
			return &path
		}
	}
	return nil
}

// codexDescribeStdin describes a write_stdin call as a Bash command line.
func codexDescribeStdin(args parse.Object) string {
	session := ""
	if s, ok := args.StrOK("session_id"); ok {
		session = " " + s
	} else if raw := args["session_id"]; len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		session = " " + string(raw)
	}
	chars := args.Str("chars")
	switch chars {
	case "":
		return "poll session" + session
	case "\x03":
		return "send Ctrl-C to session" + session
	}
	preview := codexEscapeDefault(chars)
	if len(preview) > 32 { // all ASCII, so bytes are chars
		preview = preview[:29] + "..."
	}
	return `send "` + preview + `" to session` + session
}

// codexEscapeDefault escapes s like Rust's str::escape_default: printable
// ASCII stays, \t \r \n \\ \' \" get backslashes, anything else \u{hex}.
func codexEscapeDefault(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\\' || r == '\'' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\u{%x}`, r)
		}
	}
	return b.String()
}

// codexShellJoin quotes argv into one POSIX shell command line.
func codexShellJoin(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = codexShellQuote(a)
	}
	return strings.Join(quoted, " ")
}

// codexShellQuote quotes a for a POSIX shell when it needs quoting.
func codexShellQuote(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// codexOutputText returns a tool output as text: a JSON string as is, the
// text parts of a content array (or object), any other JSON verbatim.
func codexOutputText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	o := parse.Object{"v": raw}
	if s, ok := o.StrOK("v"); ok {
		return s
	}
	if item, ok := parse.DecodeObject(raw); ok {
		if s, ok := item.StrOK("text"); ok {
			return s
		}
		o = parse.Object{"v": item["content"]}
	}
	var parts []string
	for _, el := range o.List("v") {
		if item, ok := parse.DecodeObject(el); ok {
			if s, ok := item.StrOK("text"); ok {
				parts = append(parts, s)
			}
		}
	}
	if parts == nil {
		return string(raw)
	}
	return strings.Join(parts, "\n")
}

// codexNormalizeOutput unwraps a Codex tool output (spec §5.7) and reports
// whether it is an error. Unlike AZUREAL it keeps a non-zero exit code: the
// text ends with an "Exit code: N" line and the result is an error.
func codexNormalizeOutput(out string) (string, bool) {
	if env, ok := parse.DecodeObject([]byte(out)); ok {
		if inner, ok := env.StrOK("output"); ok {
			code, hasCode := env.Obj("metadata").Integer("exit_code")
			switch {
			case hasCode && code != 0:
				return codexWithExit(inner, code), true
			case hasCode && strings.TrimSpace(inner) == "":
				return "", false
			case hasCode:
				return inner, false
			}
			return inner, codexErrorText(inner)
		}
	}
	if text, isErr, ok := codexHeaded(out); ok {
		return text, isErr
	}
	return out, codexErrorText(out)
}

// codexHeaded unwraps outputs with a header before "Output:": exec_command's
// "Chunk ID: …" format and apply_patch's "Exit code: N\nWall time: …" one.
func codexHeaded(out string) (string, bool, bool) {
	chunk := strings.HasPrefix(out, "Chunk ID:")
	if !chunk && !strings.HasPrefix(out, "Exit code: ") {
		return "", false, false
	}
	head, body, found := strings.Cut(out, "\nOutput:\n")
	if !chunk && !found {
		return "", false, false
	}
	body = strings.TrimRight(body, "\n")
	code, hasCode := codexExitCode(head)
	switch {
	case hasCode && code != 0:
		return codexWithExit(body, code), true, true
	case strings.TrimSpace(body) != "":
		return body, false, true
	case hasCode:
		return "", false, true
	}
	for line := range strings.SplitSeq(head, "\n") {
		if id, ok := strings.CutPrefix(line, "Process running with session ID "); ok {
			return "Process running with session ID " + strings.TrimSpace(id), false, true
		}
	}
	return out, codexErrorText(out), true
}

// codexExitCode finds the exit code in an output header.
func codexExitCode(head string) (int64, bool) {
	for line := range strings.SplitSeq(head, "\n") {
		for _, p := range []string{"Process exited with code ", "Exit code: "} {
			if rest, ok := strings.CutPrefix(line, p); ok {
				n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}

// codexWithExit appends the exit-code note to a failed command's output.
func codexWithExit(out string, code int64) string {
	note := "Exit code: " + strconv.FormatInt(code, 10)
	out = strings.TrimRight(out, "\r\n")
	if strings.TrimSpace(out) == "" {
		return note
	}
	return out + "\n" + note
}

// codexErrorPrefixes start tool outputs that report a failure. AZUREAL knows
// the first three; the others are Codex 0.4x sandbox and patch errors.
var codexErrorPrefixes = []string{
	"Error", "write_stdin failed:", "exec_command failed:",
	"error:", "execution error", "failed in sandbox", "patch rejected",
}

// codexErrorText reports whether a tool output text is an error.
func codexErrorText(s string) bool {
	for _, p := range codexErrorPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return strings.HasPrefix(s, "Exit code: ") && !strings.HasPrefix(s, "Exit code: 0")
}

// estimateCodexCost is AZUREAL's rough Codex price in USD: $10 per million
// input tokens and $30 per million output tokens (spec §9 item 22).
func estimateCodexCost(inputTokens, outputTokens uint64) float64 {
	return (float64(inputTokens)*10 + float64(outputTokens)*30) / 1e6
}

// codexTokens reads a token count, treating anything but a non-negative
// integer as 0.
func codexTokens(usage parse.Object, k string) uint64 {
	n, ok := usage.Integer(k)
	if !ok || n < 0 {
		return 0
	}
	return uint64(n)
}
