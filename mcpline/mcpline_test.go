package mcpline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestFilter: valid messages pass to the SDK unchanged; a line too long,
// not JSON, too deeply nested or not JSON-RPC is answered on out (a tool
// call with the CallResult when there is one, else a JSON-RPC error with
// its id, or null), and the lines after it still pass.
func TestFilter(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	deep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	tests := []struct {
		name, line string
		result     CallResult
		want       string // the answer's id and error code, or its result
	}{
		{"TooLong", `{"jsonrpc":"2.0","id":2,"method":"ping","params":"` + strings.Repeat("a", 300) + `"}`, nil, `2 -32600`},
		{"NotJSON", `{{{`, nil, `null -32700`},
		{"Deep", deep, nil, `7 -32600`},
		{"DeepCallResult", deep, func(why string) any { return map[string]string{"why": "x"} }, `7 {"why":"x"}`},
		{"NotJSONRPC", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, nil, `"a" -32600`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sdk, out bytes.Buffer
			max := 200
			if tt.name == "Deep" || tt.name == "DeepCallResult" {
				max = 1 << 20
			}
			in := strings.NewReader(tt.line + "\n" + ok + "\n")
			if err := Filter(in, &sdk, &out, max, tt.result); err != nil {
				t.Fatal(err)
			}
			if sdk.String() != ok+"\n" {
				t.Errorf("the SDK got %q, want only the valid line", sdk.String())
			}
			var msg struct {
				ID     json.RawMessage
				Result json.RawMessage
				Error  *struct{ Code int }
			}
			if err := json.Unmarshal(out.Bytes(), &msg); err != nil {
				t.Fatalf("answer %q: %v", out.String(), err)
			}
			got := string(msg.ID) + " " + string(msg.Result)
			if msg.Error != nil {
				got = string(msg.ID) + " " + itoa(msg.Error.Code)
			}
			if got != tt.want {
				t.Errorf("answer %s, want %s", got, tt.want)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
