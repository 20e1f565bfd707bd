package fakemodel

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
)

// API names the protocol of a request.
type API string

// The kinds of request the server records.
const (
	Anthropic   API = "anthropic"    // POST /v1/messages
	CountTokens API = "count_tokens" // POST /v1/messages/count_tokens, /v1beta/models/M:countTokens
	OpenAI      API = "openai"       // POST /v1/responses
	OpenAIChat  API = "openai-chat"  // POST /v1/chat/completions
	Gemini      API = "gemini"       // POST /v1beta/models/M:streamGenerateContent or :generateContent
	Connect     API = "connect"      // a refused proxy CONNECT
	Unknown     API = "unknown"      // anything else, answered 404
)

// Request is one request the server received, and how it answered.
type Request struct {
	Seq    int // 1-based arrival order
	API    API
	Method string
	Path   string // URL path, or host:port for CONNECT
	Header http.Header
	Raw    []byte         // the body as received
	Body   map[string]any // the body decoded as a JSON object; nil if it is not one

	// Conversation is the CLI's session id header (X-Claude-Code-Session-Id
	// or session-id); retries of a request share it.
	Conversation string
	Route        int // index of the matched Route, -1 for the default script
	Step         int // index of the step served; -1 when none
	Served       string
}

// Served values of Request.
const (
	ServedReply      = "reply"
	ServedError      = "error"
	ServedHang       = "hang"
	ServedDisconnect = "disconnect"
	ServedExhausted  = "exhausted" // the script had no step left
	ServedOther      = "other"     // count_tokens, CONNECT, 404
)

// messages returns the conversation items of a request: Anthropic
// messages or OpenAI input items.
func messages(body map[string]any) []map[string]any {
	var list []any
	if contents, ok := body["contents"].([]any); ok {
		return geminiMessages(contents)
	}
	switch v := body["messages"].(type) {
	case []any:
		list = v
	default:
		switch in := body["input"].(type) {
		case []any:
			list = in
		case string:
			return []map[string]any{{"role": "user", "content": in}}
		}
	}
	out := make([]map[string]any, 0, len(list))
	for _, m := range list {
		if o, ok := m.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// texts returns the text of a message's content: a string, or its text /
// input_text blocks.
func texts(content any) []string {
	switch c := content.(type) {
	case string:
		return []string{c}
	case []any:
		var out []string
		for _, b := range c {
			o, ok := b.(map[string]any)
			if !ok {
				continue
			}
			if t, _ := o["type"].(string); t == "text" || t == "input_text" {
				if s, ok := o["text"].(string); ok {
					out = append(out, s)
				}
			}
		}
		return out
	}
	return nil
}

// isUserMessage reports a user-role message (OpenAI items without a type
// are messages too).
func isUserMessage(m map[string]any) bool {
	role, _ := m["role"].(string)
	typ, _ := m["type"].(string)
	return role == "user" && (typ == "" || typ == "message")
}

// UserTexts returns the text blocks of every user message of the request,
// in order: Anthropic text blocks of role user (tool results excluded),
// OpenAI input_text of role user messages.
func UserTexts(r Request) []string {
	var out []string
	for _, m := range messages(r.Body) {
		if isUserMessage(m) {
			out = append(out, texts(m["content"])...)
		}
	}
	return out
}

// UserText returns all user text of the request, blocks joined by "\n".
func UserText(r Request) string { return strings.Join(UserTexts(r), "\n") }

// LastUserText returns the last user text block of the request: the
// prompt, in a request of a conversation's first step.
func LastUserText(r Request) string {
	t := UserTexts(r)
	if len(t) == 0 {
		return ""
	}
	return t[len(t)-1]
}

// FirstUserText returns the text of the user messages that open the
// conversation (before the first assistant or tool item), joined by "\n".
// Scripts are routed on it.
func FirstUserText(r Request) string {
	var out []string
	for _, m := range messages(r.Body) {
		role, _ := m["role"].(string)
		switch {
		case isUserMessage(m):
			out = append(out, texts(m["content"])...)
			continue
		case role == "developer" || role == "system":
			continue
		}
		break
	}
	return strings.Join(out, "\n")
}

// toolIDs returns the tool-call ids the request carries: Anthropic
// tool_use ids and tool_result tool_use_ids, OpenAI call_ids, Chat
// Completions tool_calls ids and tool_call_ids.
func toolIDs(body map[string]any) []string {
	var ids []string
	for _, m := range messages(body) {
		if id, ok := m["call_id"].(string); ok {
			ids = append(ids, id)
		}
		ids = append(ids, chatToolIDs(m)...)
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			o, ok := b.(map[string]any)
			if !ok {
				continue
			}
			for _, k := range []string{"id", "tool_use_id"} {
				if id, ok := o[k].(string); ok {
					ids = append(ids, id)
				}
			}
		}
	}
	return ids
}

var (
	claudeCWD = regexp.MustCompile(`Primary working directory: ([^\n]+)`)
	codexCWD  = regexp.MustCompile(`<cwd>([^<]+)</cwd>`)
	qwenCWD   = regexp.MustCompile(`I'm currently working in the directory: ([^\n]+)`)
	geminiCWD = regexp.MustCompile(`\*\*Workspace Directories:\*\*\n\s*- ([^\n]+)`)
)

// workingDir returns the agent's working directory as the request states
// it, or "".
func workingDir(body map[string]any) string {
	for _, m := range messages(body) {
		for _, t := range texts(m["content"]) {
			for _, re := range []*regexp.Regexp{claudeCWD, codexCWD, qwenCWD, geminiCWD} {
				if s := re.FindStringSubmatch(t); s != nil {
					return strings.TrimSpace(s[1])
				}
			}
		}
	}
	return ""
}

// decodeBody decodes a JSON object body; nil when it is not one.
func decodeBody(raw []byte) map[string]any {
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		return nil
	}
	return body
}

// ToolResults returns the text of the tool results the request carries,
// joined by "\n": Anthropic tool_result blocks (their string content or
// text blocks), OpenAI function_call_output and custom_tool_call_output
// items (their output string or its text parts).
func ToolResults(r Request) string { return toolResults(r.Body) }

func toolResults(body map[string]any) string {
	var out []string
	for _, m := range messages(body) {
		switch typ, _ := m["type"].(string); typ {
		case "function_call_output", "custom_tool_call_output":
			switch o := m["output"].(type) {
			case string:
				out = append(out, o)
			default:
				out = append(out, texts(o)...)
			}
			continue
		}
		if m["role"] == "tool" { // chat completions: the result is the message
			if s, ok := m["content"].(string); ok {
				out = append(out, s)
			} else {
				out = append(out, texts(m["content"])...)
			}
			continue
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			o, ok := b.(map[string]any)
			if !ok || o["type"] != "tool_result" {
				continue
			}
			if s, ok := o["content"].(string); ok {
				out = append(out, s)
			} else {
				out = append(out, texts(o["content"])...)
			}
		}
	}
	return strings.Join(out, "\n")
}
