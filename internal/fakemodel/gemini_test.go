package fakemodel

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func geminiBody(prompt string, callIDs ...string) map[string]any {
	contents := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "<session_context>\n- **Workspace Directories:**\n  - /w/tree\n</session_context>"}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": prompt}}},
	}
	for _, id := range callIDs {
		contents = append(contents,
			map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"id": id, "name": "ls", "args": map[string]any{}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": id, "name": "ls", "response": map[string]any{"output": "ok"}}}}})
	}
	return map[string]any{"contents": contents}
}

func postGemini(t *testing.T, s *Server, method string, body any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.URL+"/v1beta/models/gemini-test:"+method+"?alt=sse", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	return resp.StatusCode, out.String()
}

func TestGemini(t *testing.T) {
	s := New(Script{
		{Thinking: "hmm", Text: "Writing.", Tools: []ToolCall{Call("write_file", map[string]any{"file_path": "{{CWD}}/a.txt"})}},
		Text("Done."),
		Fail(500, 0),
	})
	defer s.Close()
	_, body := postGemini(t, s, "streamGenerateContent", geminiBody("go"))
	var parts []map[string]any
	var finish, usage bool
	for _, l := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok {
			continue
		}
		var r struct {
			Candidates []struct {
				Content      struct{ Parts []map[string]any }
				FinishReason string
			}
			UsageMetadata map[string]any
			ModelVersion  string
		}
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		parts = append(parts, r.Candidates[0].Content.Parts...)
		finish = finish || r.Candidates[0].FinishReason == "STOP"
		usage = usage || r.UsageMetadata["promptTokenCount"] != nil
		if r.ModelVersion != "gemini-test" {
			t.Errorf("model %q", r.ModelVersion)
		}
	}
	if len(parts) != 3 || parts[0]["thought"] != true || parts[1]["text"] != "Writing." || !finish || !usage {
		t.Fatalf("parts %v finish %v usage %v", parts, finish, usage)
	}
	fc := parts[2]["functionCall"].(map[string]any)
	if fc["id"] != "call_fkm_0_0" || fc["args"].(map[string]any)["file_path"] != "/w/tree/a.txt" {
		t.Errorf("call %v", fc)
	}
	status, body := postGemini(t, s, "generateContent", geminiBody("go", "call_fkm_0_0"))
	if status != 200 || !strings.Contains(body, `"text":"Done."`) || strings.HasPrefix(body, "data:") {
		t.Errorf("generateContent: %d %s", status, body)
	}
	status, body = postGemini(t, s, "streamGenerateContent", geminiBody("go", "call_fkm_0_0", "call_fkm_1_0"))
	if status != 500 || !strings.Contains(body, `"status":"INTERNAL"`) {
		t.Errorf("error step: %d %s", status, body)
	}
	if status, body := postGemini(t, s, "countTokens", geminiBody("go")); status != 200 || !strings.Contains(body, "totalTokens") {
		t.Errorf("countTokens: %d %s", status, body)
	}
	reqs := s.Model()
	if len(reqs) != 3 || reqs[0].API != Gemini || LastUserText(reqs[0]) != "go" || reqs[1].Step != 1 {
		t.Errorf("requests %+v", reqs)
	}
}
