package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lazuli-app/lazuli/permprompt"
)

// connect returns an MCP client (claude's side) connected in process to
// the server forwarding to socket.
func connect(t *testing.T, socket string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewServer(socket, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestRoundTrip: an MCP client (claude's side) calls the permission tool;
// the request reaches the broker's handler as claude sent it, and the
// handler's answer comes back as the one text block claude parses:
// allow with the input as updatedInput, or deny with a message. The tool
// is listed under the name claude's --permission-prompt-tool uses.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []permprompt.Request
	broker, err := permprompt.Listen(func(_ context.Context, req permprompt.Request) permprompt.Response {
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		if req.ToolName == "Bash" {
			return permprompt.Allow(req)
		}
		return permprompt.Deny("no edits here")
	})
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()

	cs := connect(t, broker.Socket())

	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || "mcp__"+ServerName+"__"+tools.Tools[0].Name != PromptTool {
		t.Fatalf("ListTools() = %+v, %v", tools, err)
	}
	call := func(tool string, in map[string]any) permprompt.Response {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName,
			Arguments: map[string]any{"tool_name": tool, "input": in, "tool_use_id": "toolu_1"}})
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("CallTool() = %+v, %v", res, err)
		}
		text, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want one text block", res.Content[0])
		}
		var resp permprompt.Response
		if err := json.Unmarshal([]byte(text.Text), &resp); err != nil {
			t.Fatalf("answer %q: %v", text.Text, err)
		}
		return resp
	}
	if r := call("Bash", map[string]any{"command": "git status"}); r.Behavior != "allow" || string(r.UpdatedInput) != `{"command":"git status"}` {
		t.Errorf("Bash answer %+v", r)
	}
	if r := call("Edit", map[string]any{"file_path": "/x"}); r.Behavior != "deny" || r.Message != "no edits here" || r.UpdatedInput != nil {
		t.Errorf("Edit answer %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].ToolName != "Bash" || string(got[0].Input) != `{"command":"git status"}` || got[0].ToolUseID != "toolu_1" {
		t.Errorf("the broker saw %+v", got)
	}
}

// TestNoLazuli: with nobody listening on the socket, the tool denies and
// says why (claude must never be told "allow" by default).
func TestNoLazuli(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, t.TempDir()+"/none")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"tool_name": "Bash", "input": map[string]any{}}})
	if err != nil {
		t.Fatal(err)
	}
	var resp permprompt.Response
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &resp); err != nil || resp.Behavior != "deny" || resp.Message == "" {
		t.Errorf("answer %+v, %v", resp, err)
	}
}

// TestServeBadLines: a line longer than MaxLine, one that is not JSON,
// one that is not a JSON-RPC message, and a tool call whose arguments
// cannot be read are each answered (a tool call with a deny, anything
// else with a JSON-RPC error), and the server goes on serving: the next
// valid tool call is answered allow.
func TestServeBadLines(t *testing.T) {
	broker, err := permprompt.Listen(func(_ context.Context, req permprompt.Request) permprompt.Response { return permprompt.Allow(req) })
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), broker.Socket(), "test", inR, outW) }()
	out := bufio.NewReader(outR)
	type reply struct {
		ID     json.RawMessage
		Result *mcp.CallToolResult
		Error  *struct{ Code int }
	}
	send := func(t *testing.T, line string) reply {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write %.40q: %v", line, err)
		}
		data, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer to %.40q: %v", line, err)
		}
		var r reply
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("answer %q: %v", data, err)
		}
		return r
	}
	behavior := func(r reply) string {
		if r.Result == nil || len(r.Result.Content) != 1 {
			return "none"
		}
		var resp permprompt.Response
		_ = json.Unmarshal([]byte(r.Result.Content[0].(*mcp.TextContent).Text), &resp)
		return resp.Behavior
	}
	call := func(id int, args string) string {
		return fmt.Sprintf(`{"method":"tools/call","params":{"name":%q,"arguments":%s},"jsonrpc":"2.0","id":%d}`, ToolName, args, id)
	}
	if r := send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude","version":"1"}}}`); r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		line     string
		wantID   string
		wantCode int    // a JSON-RPC error
		want     string // or the tool's answer
	}{
		{"TooLongCall", call(2, `{"tool_name":"Write","input":{"content":"`+strings.Repeat("a", 2<<20)+`"}}`), "2", 0, "deny"},
		{"TooLongNotJSON", strings.Repeat("{", 2<<20), "null", -32700, ""},
		{"TooLongOtherMethod", `{"jsonrpc":"2.0","id":"x","method":"ping","params":{"a":"` + strings.Repeat("b", 2<<20) + `"}}`, `"x"`, -32600, ""},
		{"CutShort", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`, "3", 0, "deny"},
		{"NotJSON", `not json`, "null", -32700, ""},
		{"NotJSONRPC", `{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, "4", -32600, ""},
		{"BadArguments", call(5, `{"tool_name":5,"input":{}}`), "5", 0, "deny"},
		{"NoInput", call(6, `{"tool_name":"Bash"}`), "6", 0, "deny"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := send(t, tt.line)
			code := 0
			if r.Error != nil {
				code = r.Error.Code
			}
			if string(r.ID) != tt.wantID || code != tt.wantCode || (tt.want != "" && behavior(r) != tt.want) {
				t.Errorf("answer to %.60q = id %s, error %d, %s; want id %s, error %d, %s", tt.line, r.ID, code, behavior(r), tt.wantID, tt.wantCode, tt.want)
			}
			next := send(t, call(100+i, `{"tool_name":"Read","input":{"file_path":"/a"}}`))
			if got := behavior(next); string(next.ID) != fmt.Sprint(100+i) || got != "allow" {
				t.Errorf("next call answered id %s %s, want id %d allow", next.ID, got, 100+i)
			}
		})
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve() = %v after the client hung up", err)
	}
}
