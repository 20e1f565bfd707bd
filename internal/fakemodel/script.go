package fakemodel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Step is one scripted model reply. The zero Step is an empty text reply
// that ends the turn.
type Step struct {
	// Text is the assistant text; it is streamed before the tool calls.
	Text string
	// Thinking is the model's reasoning, streamed before the text where
	// the API has a place for it: an Anthropic thinking block (with a fake
	// signature), Gemini thought parts, Chat Completions
	// reasoning_content; the Responses stream leaves it out.
	Thinking string
	// Tools are the tool calls of the reply; with any, the reply stops for
	// tool use, else it ends the turn.
	Tools []ToolCall

	// Status, when non-zero, answers with this HTTP status and Body (a
	// default error body of the API when Body is empty) instead of a reply.
	Status int
	Body   string
	// RetryAfterMS, when non-zero, sends an error step's retry-after-ms
	// header (and retry-after, in whole seconds rounded up), which some
	// CLIs wait for instead of their own backoff.
	RetryAfterMS int
	// Times bounds an error step: after it was served Times times in one
	// conversation, the requests at its position get the steps after it.
	// 0 means every time.
	Times int

	// Hang starts the reply (message_start / response.created) and then
	// keeps the stream open until the client goes away or the server is
	// closed.
	Hang bool
	// Disconnect starts the reply and then drops the connection.
	Disconnect bool
	// Wait, when non-nil, holds the reply until the channel is closed (or
	// the client goes away).
	Wait <-chan struct{}
}

// ToolCall is one tool call of a Step.
type ToolCall struct {
	Name string
	// Input is marshalled to the call's JSON arguments. Its strings may
	// contain {{CWD}}, replaced by the agent's working directory.
	Input any
	// Freeform, when set, makes the call an OpenAI custom (freeform) tool
	// call, such as Codex's apply_patch, with this raw input; Input is then
	// ignored. The Anthropic API has no such calls.
	Freeform string
	// Namespace, when set, is the OpenAI function call's namespace: Codex
	// offers MCP tools in one per server (mcp__lazuli) and calls Name
	// within it. The Anthropic API has none.
	Namespace string
}

// Script is the sequence of replies of one conversation.
type Script []Step

// Route sends a conversation to a script by its first user text.
type Route struct {
	// Contains is matched against FirstUserText of the request.
	Contains string
	Script   Script
}

// Text returns a step that answers with text and ends the turn.
func Text(s string) Step { return Step{Text: s} }

// Tools returns a step that calls tools after optional text.
func Tools(text string, calls ...ToolCall) Step { return Step{Text: text, Tools: calls} }

// Fail returns a step that answers with an HTTP error the first times
// requests reach it (always when times is 0).
func Fail(status, times int) Step { return Step{Status: status, Times: times} }

// Hang returns a step that starts a reply and never finishes it.
func Hang() Step { return Step{Hang: true} }

// Call returns a tool call with JSON input.
func Call(name string, input any) ToolCall { return ToolCall{Name: name, Input: input} }

// Bash returns a Claude Bash tool call.
func Bash(command string) ToolCall {
	return Call("Bash", map[string]any{"command": command, "description": "Run " + command})
}

// Exec returns a Codex exec_command tool call.
func Exec(cmd string) ToolCall { return Call("exec_command", map[string]any{"cmd": cmd}) }

// ApplyPatch returns a Codex apply_patch call with a raw patch.
func ApplyPatch(patch string) ToolCall { return ToolCall{Name: "apply_patch", Freeform: patch} }

// Tool-call ids encode the step that made them: toolu_fkm_<step>_<n>
// (Anthropic) and call_fkm_<step>_<n> (OpenAI).
var idPattern = regexp.MustCompile(`^(?:toolu|call)_fkm_(\d+)_(\d+)$`)

// anthropicToolID and openaiCallID return the id of call n of step k.
func anthropicToolID(k, n int) string { return fmt.Sprintf("toolu_fkm_%d_%d", k, n) }
func openaiCallID(k, n int) string    { return fmt.Sprintf("call_fkm_%d_%d", k, n) }

// stepOfID returns the step encoded in a scripted tool-call id, or -1.
func stepOfID(id string) int {
	m := idPattern.FindStringSubmatch(id)
	if m == nil {
		return -1
	}
	k, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return k
}

// position returns the index of the next step of a conversation: one past
// the highest step whose tool calls the request carries, else 0.
func position(ids []string) int {
	p := 0
	for _, id := range ids {
		if k := stepOfID(id); k+1 > p {
			p = k + 1
		}
	}
	return p
}

// withCWD replaces {{CWD}} in s with cwd.
func withCWD(s, cwd string) string { return strings.ReplaceAll(s, "{{CWD}}", cwd) }

// reMatch finds {{MATCH:regexp}} in a step's strings.
var reMatch = regexp.MustCompile(`\{\{MATCH:(.+?)\}\}`)

// withResults returns the step with each {{MATCH:re}} in its text and in
// the strings of its tool inputs replaced by what re matches in results
// (the text of the tool results the request carries): its first group,
// or the whole match; "" when nothing matches. A later step can so use
// what an earlier tool call returned, such as a session an MCP search
// found.
func (st Step) withResults(results string) Step {
	if !strings.Contains(st.Text, "{{MATCH:") && !toolsMatch(st.Tools) {
		return st
	}
	expand := func(s string) string {
		return reMatch.ReplaceAllStringFunc(s, func(m string) string {
			re, err := regexp.Compile(reMatch.FindStringSubmatch(m)[1])
			if err != nil {
				return "(fakemodel: bad MATCH: " + err.Error() + ")"
			}
			found := re.FindStringSubmatch(results)
			switch {
			case found == nil:
				return ""
			case len(found) > 1:
				return found[1]
			}
			return found[0]
		})
	}
	st.Text = expand(st.Text)
	tools := make([]ToolCall, len(st.Tools))
	for i, c := range st.Tools {
		c.Freeform = expand(c.Freeform)
		if c.Input != nil {
			c.Input = mapStrings(c.Input, expand)
		}
		tools[i] = c
	}
	st.Tools = tools
	return st
}

// toolsMatch reports whether a call's input or raw input holds {{MATCH:.
func toolsMatch(calls []ToolCall) bool {
	for _, c := range calls {
		if strings.Contains(c.Freeform, "{{MATCH:") || strings.Contains(string(mustJSON(c.Input)), "{{MATCH:") {
			return true
		}
	}
	return false
}
