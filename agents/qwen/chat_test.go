package qwen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/jsonlines"
)

// The captures Qwen Code 0.24.4 wrote against the scripted model
// (internal/agentcapture): after the multi-tool turn, after its resumed
// (--continue) second prompt, and after a session whose model answered
// HTTP 500 to every retry.
const capture = "testdata/capture"

func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var o map[string]any
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, o)
	}
	return out
}

// chatOf returns the chat file of the session whose stdout is scenario's,
// as it was after the state scenario.
func chatOf(t *testing.T, session, state string) string {
	t.Helper()
	var id string
	for _, o := range jsonLines(t, filepath.Join(capture, session+".stdout.jsonl")) {
		if o["type"] == "system" {
			id = o["session_id"].(string)
			break
		}
	}
	m, _ := filepath.Glob(filepath.Join(capture, state+".home", ".qwen", "projects", "*", "chats", id+".jsonl"))
	if len(m) != 1 {
		t.Fatalf("chat of %s after %s: %v", session, state, m)
	}
	return m[0]
}

func parseChat(t *testing.T, path string) ([]codec.Event, *ChatParser) {
	t.Helper()
	p := NewChatParser()
	evs, st, err := parse.ReadFile(path, p)
	if err != nil || st.Malformed != 0 {
		t.Fatalf("%s: %v %+v", path, err, st)
	}
	return evs, p
}

func TestChatMatchesTheFileFieldByField(t *testing.T) {
	path := chatOf(t, "multitool", "resumed")
	evs, p := parseChat(t, path)
	lines := jsonLines(t, path)
	if evs[0].Kind != codec.KindInit || evs[0].Model != "qwen3-coder-plus" || evs[0].CWD != lines[0]["cwd"] ||
		p.SessionID() != lines[0]["sessionId"] || p.Started().IsZero() {
		t.Errorf("init %+v, session %q", evs[0], p.SessionID())
	}
	i := 1
	next := func() codec.Event {
		t.Helper()
		if i >= len(evs) {
			t.Fatalf("events end at %d", i)
		}
		i++
		return evs[i-1]
	}
	names := map[string]string{"write_file": "Write", "read_file": "Read", "edit": "Edit", "run_shell_command": "Bash", "grep_search": "Grep"}
	var prompts, calls, results, replies int
	var in, out, reasoning int64
	for _, l := range lines {
		msg, _ := l["message"].(map[string]any)
		parts, _ := msg["parts"].([]any)
		switch l["type"] {
		case "user":
			if prompts > 0 {
				if e := next(); e.Kind != codec.KindComplete || !e.Success || e.DurationMS == 0 {
					t.Errorf("turn end %+v", e)
				}
			}
			prompts++
			if e := next(); e.Kind != codec.KindUserMessage || e.Content != parts[0].(map[string]any)["text"] {
				t.Errorf("prompt %+v", e)
			}
		case "assistant":
			replies++
			um := l["usageMetadata"].(map[string]any)
			in += int64(um["promptTokenCount"].(float64))
			th, _ := um["thoughtsTokenCount"].(float64)
			out += int64(um["candidatesTokenCount"].(float64) + th)
			reasoning += int64(th)
			for _, x := range parts {
				part := x.(map[string]any)
				e := next()
				switch {
				case part["functionCall"] != nil:
					calls++
					fc := part["functionCall"].(map[string]any)
					var input map[string]any
					_ = json.Unmarshal(e.Input, &input)
					if e.Kind != codec.KindToolCall || e.ToolUseID != fc["id"] || e.ToolName != names[fc["name"].(string)] {
						t.Errorf("call %+v, want %v", e, fc)
					}
					for k, v := range fc["args"].(map[string]any) {
						if k != "directory" && input[k] != v {
							t.Errorf("%s input %s = %v, want %v", e.ToolName, k, input[k], v)
						}
					}
				case part["thought"] == true:
					if e.Kind != "Thinking" || e.Text != part["text"] {
						t.Errorf("thinking %+v", e)
					}
				default:
					if e.Kind != codec.KindAssistantText || e.Text != part["text"] {
						t.Errorf("text %+v, want %v", e, part["text"])
					}
				}
			}
		case "tool_result":
			results++
			fr := parts[0].(map[string]any)["functionResponse"].(map[string]any)
			resp := fr["response"].(map[string]any)
			e := next()
			want, failed := resp["output"], false
			if er, ok := resp["error"]; ok {
				want, failed = er, true
			}
			if e.Kind != codec.KindToolResult || e.ToolUseID != fr["id"] || e.Content != want || e.IsError != failed ||
				e.ToolName != names[fr["name"].(string)] {
				t.Errorf("result %+v, want %q (error %v)", e, want, failed)
			}
			if status := l["toolCallResult"].(map[string]any)["status"]; (status != "success") != failed {
				t.Errorf("%s: status %v but error %v", fr["id"], status, failed)
			}
		}
	}
	if e := next(); e.Kind != codec.KindComplete || !e.Success {
		t.Errorf("last %+v", e)
	}
	if i != len(evs) || prompts != 2 || calls != 7 || results != 7 || replies != 5 {
		t.Errorf("%d of %d events; %d prompts %d calls %d results %d replies", i, len(evs), prompts, calls, results, replies)
	}
	var gotIn, gotOut, gotR int64
	for _, u := range p.Usage() {
		gotIn, gotOut, gotR = gotIn+u.Usage().Input, gotOut+u.Usage().Output, gotR+u.Usage().Reasoning
	}
	if len(p.Usage()) != replies || gotIn != in || gotOut != out || gotR != reasoning || reasoning == 0 {
		t.Errorf("usage %d rows in %d out %d reasoning %d; want %d %d %d %d", len(p.Usage()), gotIn, gotOut, gotR, replies, in, out, reasoning)
	}
}

func TestChatAPIErrorFailsTheTurn(t *testing.T) {
	evs, _ := parseChat(t, chatOf(t, "apierror", "apierror"))
	if len(evs) != 4 || evs[1].Content != "Say hello" || !strings.Contains(evs[2].Text, "500") ||
		evs[3].Kind != codec.KindComplete || evs[3].Success {
		t.Errorf("events %+v", evs)
	}
}

// The API error lines of the capture, their event name written with
// \u escapes as JSON allows, still fail the turn: the check that skips
// telemetry lines without reading them must not skip these.
func TestChatAPIErrorBehindEscapes(t *testing.T) {
	b, err := os.ReadFile(chatOf(t, "apierror", "apierror"))
	if err != nil {
		t.Fatal(err)
	}
	escaped := bytes.ReplaceAll(b, []byte(`"qwen-code.api_error"`), []byte(`"qwen-code.api\u005ferror"`))
	if bytes.Equal(escaped, b) {
		t.Fatal("the capture names no api_error")
	}
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	if err := os.WriteFile(path, escaped, 0o644); err != nil {
		t.Fatal(err)
	}
	evs, _ := parseChat(t, path)
	if len(evs) != 4 || !strings.Contains(evs[2].Text, "500") || evs[3].Kind != codec.KindComplete || evs[3].Success {
		t.Errorf("events %+v", evs)
	}
}

func TestStreamMapsQwenTools(t *testing.T) {
	p := NewStreamParser("")
	evs, _, err := parse.ReadFile(filepath.Join(capture, "multitool.stdout.jsonl"), p)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	var failed int
	for _, e := range evs {
		if e.Kind == codec.KindToolCall {
			calls = append(calls, e.ToolName)
		}
		if e.Kind == codec.KindToolResult && e.IsError {
			failed++
		}
	}
	last := evs[len(evs)-1]
	if strings.Join(calls, ",") != "Write,Read,Edit,Bash,Bash,Grep" || failed != 1 || last.Kind != codec.KindComplete || !last.Success {
		t.Errorf("calls %v, %d failed, last %+v", calls, failed, last)
	}
	u := p.Usage()
	if len(u) != 1 || u[0].Usage().Backend != "qwen" || u[0].Usage().Source != string(FormatStream) || u[0].Usage().Input != 300 {
		t.Errorf("usage %+v", u)
	}
	evs, _, _ = parse.ReadFile(filepath.Join(capture, "apierror.stdout.jsonl"), NewStreamParser(""))
	if last := evs[len(evs)-1]; last.Kind != codec.KindComplete || last.Success {
		t.Errorf("API error run ends %+v", last)
	}
}

func TestChatFormatIsDetectedBeforeClaudes(t *testing.T) {
	f, _ := os.Open(chatOf(t, "multitool", "multitool"))
	defer f.Close()
	head, _ := parse.PeekLines(bufio.NewReader(f), 30)
	if got, err := parse.DetectFormat(head); err != nil || got != FormatChat {
		t.Errorf("detected %q %v, want %s (its lines have Claude's uuid/parentUuid chain)", got, err, FormatChat)
	}
}

// TestChatCacheAndThoughtTokens: a reply's cached input moves from Input
// to CacheRead and its thoughts count as output and as reasoning. The
// scripted model reports no cached tokens, so the captured chat holds
// zeros there; it is parsed with each reply's cachedContentTokenCount and
// thoughtsTokenCount set to distinct values, nothing else changed.
func TestChatCacheAndThoughtTokens(t *testing.T) {
	var n int64
	var want, got struct{ in, cached, out, reasoning int64 }
	path := jsonlines.Edit(t, chatOf(t, "multitool", "resumed"), func(o map[string]any) {
		if um, ok := o["usageMetadata"].(map[string]any); ok && o["type"] == "assistant" {
			n++
			um["cachedContentTokenCount"], um["thoughtsTokenCount"] = 10*n, n
			in := int64(um["promptTokenCount"].(float64))
			cached := min(10*n, in)
			want.in, want.cached = want.in+in-cached, want.cached+cached
			want.out, want.reasoning = want.out+int64(um["candidatesTokenCount"].(float64))+n, want.reasoning+n
		}
	})
	_, p := parseChat(t, path)
	for _, u := range p.Usage() {
		t := u.Usage().Tokens
		got.in, got.cached, got.out, got.reasoning = got.in+t.Input, got.cached+t.CacheRead, got.out+t.Output, got.reasoning+t.Reasoning
	}
	if n == 0 || got != want {
		t.Errorf("%d replies: tokens %+v, want %+v", n, got, want)
	}
}
