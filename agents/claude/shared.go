package claude

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// This file holds what both Claude parsers share: JSON access, tool calls
// and results, prompt blocks, hooks and synthetic messages.

// TrimLine trims white space and a UTF-8 byte order mark from a line.
func TrimLine(line []byte) []byte {
	return bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("\xef\xbb\xbf")))
}

// claudeAPIErrorHook names the Hook that reports a failed API call the CLI
// retried.
const claudeAPIErrorHook = "API error"

// claudeToolRef is what a tool result needs to know about its call.
type claudeToolRef struct {
	name string
	path *string
}

// claudeTools maps tool_use ids to their calls.
type claudeTools map[string]claudeToolRef

// lookup returns the name and file path of call id, or "Unknown" and nil.
// The path is a copy, so no two events share one.
func (t claudeTools) lookup(id string) (string, *string) {
	r, ok := t[id]
	if !ok {
		return "Unknown", nil
	}
	if r.path != nil {
		path := *r.path // a copy: the caller's event must not share it
		return r.name, &path
	}
	return r.name, nil
}

// claudeIsAgentTool reports whether name is the sub-agent tool (Task, renamed
// Agent in 2.1).
func claudeIsAgentTool(name string) bool { return name == "Agent" || name == "Task" }

// claudeThinking keeps a thinking block's text as thinking (stored beside
// the events, never in the context), without the system reminders it may
// carry (those are hooks); an empty or redacted block gives nothing.
func claudeThinking(text string) []codec.Event {
	const open, closing = "<system-reminder>", "</system-reminder>"
	for {
		i := strings.Index(text, open)
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], closing)
		if j < 0 {
			break
		}
		text = text[:i] + text[i+j+len(closing):]
	}
	if text = strings.TrimSpace(text); text == "" {
		return nil
	}
	return []codec.Event{store.Thinking(text)}
}

// claudeToolPath returns input.file_path, or input.path when file_path is
// absent, if that value is a string.
func claudeToolPath(input []byte) *string {
	in, _ := parse.DecodeObject(input)
	key := "file_path"
	if _, ok := in[key]; !ok {
		key = "path"
	}
	if s, ok := in.StrOK(key); ok {
		return &s
	}
	return nil
}

// claudePromptText gathers the text and image blocks of an array-form prompt.
type claudePromptText struct{ parts []string }

// add records block b if it is text or an image.
func (t *claudePromptText) add(b parse.Object) {
	switch typ, _ := b.StrOK("type"); typ {
	case "text":
		if s, ok := b.StrOK("text"); ok {
			t.parts = append(t.parts, s)
		}
	case "image":
		t.parts = append(t.parts, "[image]")
	}
}

// String returns the gathered blocks joined by "\n".
func (t *claudePromptText) String() string { return strings.Join(t.parts, "\n") }

// claudeResult is one tool_result block.
type claudeResult struct {
	id, content string
	isError     bool
	hasIsError  bool
}

// claudeResultOf reads a tool_result block; array content keeps the text of
// its text blocks, joined by "\n".
func claudeResultOf(b parse.Object) claudeResult {
	var r claudeResult
	r.id, _ = b.StrOK("tool_use_id")
	r.isError, r.hasIsError = b.Boolean("is_error")
	if s, ok := b.StrOK("content"); ok {
		r.content = s
		return r
	}
	var parts []string
	for _, c := range b.Objs("content") {
		if typ, _ := c.StrOK("type"); typ == "text" {
			if s, ok := c.StrOK("text"); ok {
				parts = append(parts, s)
			}
		}
	}
	r.content = strings.Join(parts, "\n")
	return r
}

// claudeCompacted maps a <local-command-stdout> message: the banner when it
// reports a compaction, else nothing.
func claudeCompacted(s string) []codec.Event {
	if strings.Contains(s, "Compacted") {
		return []codec.Event{codec.Unit(codec.KindCompacted)}
	}
	return nil
}

// claudeReminderHooks returns the hooks reported inside <system-reminder>
// blocks of s ("<name> hook success: <out>" or "<name> hook failed: <out>").
// The transcript variant also strips literal "\n" escapes, shows an output of
// "..." as "[name]" and ignores unnamed hooks, as AZUREAL does per format.
func claudeReminderHooks(s string, transcript bool) []codec.Event {
	var hooks []codec.Event
	const open, closing = "<system-reminder>", "</system-reminder>"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return hooks
		}
		s = s[i+len(open):]
		j := strings.Index(s, closing)
		if j < 0 {
			return hooks
		}
		if h, ok := claudeReminderHook(s[:j], transcript); ok {
			hooks = append(hooks, h)
		}
		s = s[j+len(closing):]
	}
}

// claudeReminderHook reads the hook announced by one reminder's text.
func claudeReminderHook(r string, transcript bool) (codec.Event, bool) {
	failed := false
	i := strings.Index(r, " hook success:")
	rest := i + len(" hook success:")
	if i < 0 {
		if i = strings.Index(r, " hook failed:"); i < 0 {
			return codec.Event{}, false
		}
		failed, rest = true, i+len(" hook failed:")
	}
	name, out := strings.TrimSpace(r[:i]), strings.TrimSpace(r[rest:])
	if transcript {
		name, out = claudeTrimEscapedNewlines(name), claudeTrimEscapedNewlines(out)
		if name == "" {
			return codec.Event{}, false
		}
	}
	switch {
	case failed:
		return codec.Hook(name, "FAILED: "+out), true
	case transcript && out == "...":
		return codec.Hook(name, "["+name+"]"), true
	case out == "":
		return codec.Event{}, false
	}
	return codec.Hook(name, out), true
}

// claudeTrimEscapedNewlines removes literal `\n` escapes around s.
func claudeTrimEscapedNewlines(s string) string {
	for strings.HasPrefix(s, `\n`) {
		s = s[2:]
	}
	for strings.HasSuffix(s, `\n`) {
		s = s[:len(s)-2]
	}
	return s
}

// claudeProgressHook maps a progress line of type hook_progress.
func claudeProgressHook(o parse.Object) []codec.Event {
	d := o.Obj("data")
	if typ, _ := d.StrOK("type"); typ != "hook_progress" {
		return nil
	}
	name, ok := d.StrOK("hookName")
	if !ok {
		name, _ = d.StrOK("hookEvent")
	}
	if name == "" {
		return nil
	}
	cmd, _ := d.StrOK("command")
	out := claudeHookCommandOutput(cmd)
	if out == "" {
		out = "[" + name + "]"
	}
	return []codec.Event{codec.Hook(name, out)}
}

// claudeHookCommandOutput guesses what a hook command prints: the argument of
// a plain echo, or the value of OUT in `OUT='…'; echo "$OUT"`.
func claudeHookCommandOutput(cmd string) string {
	for _, q := range []string{"'", `"`} {
		if len(cmd) > len("echo ''") && strings.HasPrefix(cmd, "echo "+q) && strings.HasSuffix(cmd, q) {
			return cmd[len("echo "+q) : len(cmd)-1]
		}
	}
	if !strings.Contains(cmd, `; echo "$OUT"`) && !strings.Contains(cmd, `; echo '$OUT'`) {
		return ""
	}
	for _, q := range []string{"'", `"`} {
		if i := strings.Index(cmd, "OUT="+q); i >= 0 {
			rest := cmd[i+len("OUT="+q):]
			if j := strings.Index(rest, q); j >= 0 {
				return rest[:j]
			}
			return ""
		}
	}
	return ""
}

// claudeIsSynthetic reports whether an assistant line was written by Claude
// Code itself rather than the model: API errors and stubs such as
// "No response requested.".
func claudeIsSynthetic(o, msg parse.Object) bool {
	model, _ := msg.StrOK("model")
	apiErr, _ := o.Boolean("isApiErrorMessage")
	return model == "<synthetic>" || apiErr
}

// claudeSyntheticEvents keeps the error of a synthetic assistant message as
// AssistantText "Error: …" and drops stubs that report no error.
func claudeSyntheticEvents(o, msg parse.Object) []codec.Event {
	var events []codec.Event
	for _, t := range MessageTexts(msg) {
		if strings.TrimSpace(t) == "" || !claudeIsAPIError(o, t) {
			continue
		}
		if !strings.HasPrefix(t, "Error") {
			t = "Error: " + t
		}
		events = append(events, codec.AssistantText(t))
	}
	return events
}

// claudeIsAPIError reports whether synthetic text t reports an API error.
func claudeIsAPIError(o parse.Object, t string) bool {
	if v, _ := o.Boolean("isApiErrorMessage"); v {
		return true
	}
	if e := bytes.TrimSpace(o["error"]); len(e) > 0 && !bytes.Equal(e, []byte("null")) && !bytes.Equal(e, []byte(`""`)) {
		return true
	}
	return strings.HasPrefix(t, "API Error")
}

// MessageTexts returns the text of a message: its string content, or
// the text of its text blocks.
func MessageTexts(msg parse.Object) []string {
	if s, ok := msg.StrOK("content"); ok {
		return []string{s}
	}
	var texts []string
	for _, b := range msg.Objs("content") {
		if typ, _ := b.StrOK("type"); typ == "text" {
			if s, ok := b.StrOK("text"); ok {
				texts = append(texts, s)
			}
		}
	}
	return texts
}

// claudeRetryText describes a failed API call and its retry counter.
func claudeRetryText(msg string, attempt, retries uint64) string {
	if msg == "" {
		msg = "request failed"
	}
	if retries > 0 {
		msg += " (retry " + itoa(attempt) + " of " + itoa(retries) + ")"
	}
	return msg
}

// itoa formats n in decimal.
func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
