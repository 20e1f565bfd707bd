package gemini

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/jsonlines"
)

func parseStream(t *testing.T, scenario string) ([]codec.Event, []map[string]any, *StreamParser) {
	t.Helper()
	path := filepath.Join(capture, scenario+".stdout.jsonl")
	p := NewStreamParser("")
	evs, st, err := parse.ReadFile(path, p)
	if err != nil || st.Malformed != 0 || st.Ignored != 0 {
		t.Fatalf("%s: %v %+v", path, err, st)
	}
	return evs, jsonLines(t, path), p
}

func TestStreamMatchesTheOutputFieldByField(t *testing.T) {
	for _, scenario := range []string{"multitool", "resumed"} {
		evs, lines, p := parseStream(t, scenario)
		byID := map[string]codec.Event{}
		results := map[string]codec.Event{}
		var texts []string
		for _, e := range evs {
			switch e.Kind {
			case codec.KindToolCall:
				byID[e.ToolUseID] = e
			case codec.KindToolResult:
				results[e.ToolUseID] = e
			case codec.KindAssistantText:
				texts = append(texts, e.Text)
			}
		}
		var wantTexts []string
		for _, l := range lines {
			switch l["type"] {
			case "init":
				if evs[0].Kind != codec.KindInit || evs[0].Model != l["model"] || p.SessionID() != l["session_id"] {
					t.Errorf("%s init %+v", scenario, evs[0])
				}
			case "message":
				if l["role"] == "assistant" {
					wantTexts = append(wantTexts, l["content"].(string))
				} else if evs[1].Content != l["content"] {
					t.Errorf("%s prompt %q", scenario, evs[1].Content)
				}
			case "tool_use":
				call := byID[l["tool_id"].(string)]
				params := l["parameters"].(map[string]any)
				for _, k := range []string{"file_path", "command", "pattern", "old_string", "new_string", "content"} {
					if v, ok := params[k]; ok && !strings.Contains(string(call.Input), strings.TrimSuffix(strings.TrimPrefix(jsonString(v), `"`), `"`)) {
						t.Errorf("%s %s input %s lacks %s", scenario, call.ToolName, call.Input, k)
					}
				}
				if call.ToolName == "" || call.ToolName == l["tool_name"] && l["tool_name"] != "list_directory" {
					t.Errorf("%s: %s not mapped: %+v", scenario, l["tool_name"], call)
				}
			case "tool_result":
				res := results[l["tool_id"].(string)]
				out, _ := l["output"].(string)
				// stdout has no exit code: a failing shell step is a success there
				// (the chat file keeps the code; see TestChatMatchesTheFileFieldByField).
				if res.Content != out || res.IsError != failedShell(out) {
					t.Errorf("%s result %+v, want %q", scenario, res, out)
				}
			case "result":
				last := evs[len(evs)-1]
				stats := l["stats"].(map[string]any)
				if last.Kind != codec.KindComplete || !last.Success || last.DurationMS != uint64(stats["duration_ms"].(float64)) {
					t.Errorf("%s complete %+v", scenario, last)
				}
				var in, out int64
				for _, u := range p.Usage() {
					in, out = in+u.Usage().Input, out+u.Usage().Output
				}
				if in != int64(stats["input_tokens"].(float64)) || out != int64(stats["output_tokens"].(float64)) {
					t.Errorf("%s usage in %d out %d, stats %v", scenario, in, out, stats)
				}
			}
		}
		if strings.Join(texts, "|") != strings.Join(wantTexts, "|") {
			t.Errorf("%s texts %q, want %q", scenario, texts, wantTexts)
		}
	}
}

func jsonString(v any) string {
	b := strings.Builder{}
	b.WriteString(`"`)
	b.WriteString(v.(string))
	b.WriteString(`"`)
	s := b.String()
	return strings.ReplaceAll(s, "\n", `\n`)
}

func TestStreamAPIError(t *testing.T) {
	evs, _, _ := parseStream(t, "apierror")
	n := len(evs)
	if n < 2 || evs[n-1].Kind != codec.KindComplete || evs[n-1].Success ||
		evs[n-2].Kind != codec.KindAssistantText || !strings.Contains(evs[n-2].Text, `"code":500`) {
		t.Errorf("events %+v", evs)
	}
}

func TestStreamDeltasAreJoined(t *testing.T) {
	p := NewStreamParser("m")
	var evs []codec.Event
	for _, l := range []string{
		`{"type":"init","timestamp":"2026-01-01T00:00:00Z","session_id":"s","model":"auto"}`,
		`{"type":"message","role":"assistant","content":"Hel","delta":true}`,
		`{"type":"message","role":"assistant","content":"lo","delta":true}`,
		`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"false"}}`,
		`{"type":"tool_result","tool_id":"t1","status":"success","output":"Exit Code: 1"}`,
		`not json`,
		`{"type":"message","role":"assistant","content":"bye","delta":true}`,
	} {
		evs = append(evs, p.Feed([]byte(l))...)
	}
	evs = append(evs, p.Finish()...)
	if len(evs) != 5 || evs[0].Model != "m" || evs[1].Text != "Hello" || !evs[3].IsError || evs[4].Text != "bye" || p.Stats().Malformed != 1 {
		t.Errorf("events %+v stats %+v", evs, p.Stats())
	}
}

// TestStreamCachedTokens: the cached input of each model in a result's
// stats moves from Input to CacheRead. The scripted model reports none, so
// the captured output holds zeros there; it is parsed with each model's
// cached count set, nothing else changed.
func TestStreamCachedTokens(t *testing.T) {
	var want, got struct{ in, cached, out int64 }
	path := jsonlines.Edit(t, filepath.Join(capture, "multitool.stdout.jsonl"), func(o map[string]any) {
		stats, _ := o["stats"].(map[string]any)
		models, _ := stats["models"].(map[string]any)
		for _, x := range models {
			m := x.(map[string]any)
			in := int64(m["input_tokens"].(float64))
			m["cached"] = in / 3
			want.in, want.cached, want.out = want.in+in-in/3, want.cached+in/3, want.out+int64(m["output_tokens"].(float64))
		}
	})
	p := NewStreamParser("")
	if _, _, err := parse.ReadFile(path, p); err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Usage() {
		u := r.Usage()
		got.in, got.cached, got.out = got.in+u.Input, got.cached+u.CacheRead, got.out+u.Output
	}
	if want.cached == 0 || got != want {
		t.Errorf("tokens %+v, want %+v", got, want)
	}
}
