package mcpserve

import (
	"context"
	"encoding/json"
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
