package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/internal/testcache"
	"github.com/lazuli-app/lazuli/recall"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

func TestMain(m *testing.M) { os.Exit(testcache.Run(m)) }

const needle = "quokkaborealis"

// history writes a small store with its indexes and opens it as a History.
func history(t *testing.T) *recall.History {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".azureal", "sessions.azs")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Sessions().Create(ctx, "main", "deploy")
	if err != nil {
		t.Fatal(err)
	}
	file := "/w/deploy.sh"
	in, _ := json.Marshal(map[string]string{"file_path": file, "old_string": "a", "new_string": "b"})
	cmd, _ := json.Marshal(map[string]string{"command": "./deploy.sh"})
	if _, err := st.Events().Append(ctx, s.ID, []codec.Event{
		codec.Init("/w", "claude-sonnet"), codec.UserMessage("why does the deploy fail"),
		codec.ToolCall("b1", "Bash", nil, cmd), codec.ToolResult("b1", "Bash", nil, "error: "+needle+" unreachable", true),
		codec.ToolCall("e1", "Edit", &file, in), codec.AssistantText("Fixed in deploy.sh, see https://github.com/acme/app/pull/12"), codec.Complete(true, 1000, 0.1),
	}, store.Usage{Event: 5, At: "2026-11-25 10:00:00", Source: "claude-stream", Model: "m", Backend: "claude", HasCost: true}); err != nil {
		t.Fatal(err)
	}
	x, err := search.Open(ctx, st)
	if err == nil {
		_, err = x.Update(ctx, nil)
		x.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	ix, err := insight.Open(ctx, st)
	if err == nil {
		_, err = ix.Update(ctx)
		ix.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	h, err := recall.Open(ctx, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// connect returns the SDK's own client connected in process to the server.
func connect(t *testing.T, h *recall.History) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	s, err := NewServer(ctx, h, "test")
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// goodCalls is a valid call of every tool and a part of its answer.
var goodCalls = []struct {
	tool string
	args map[string]any
	want string
}{
	{recall.ToolSearch, map[string]any{"query": needle, "limit": 5}, "[S1#4]"},
	{recall.ToolRead, map[string]any{"session": "S1", "from_event": 3}, needle},
	{recall.ToolRecentEdits, map[string]any{"path": "deploy.sh"}, "[S1#5]"},
	{recall.ToolFileHistory, map[string]any{"path": "deploy.sh"}, "+b"},
	{recall.ToolRefs, map[string]any{}, "[S1#"},
	{recall.ToolUsage, map[string]any{"by": "model"}, "| m |"},
	{recall.ToolTried, map[string]any{"topic": "bash"}, "What was tried"},
	{recall.ToolQuery, map[string]any{"sql": "SELECT name FROM sessions"}, "| deploy |"},
}

// TestConformance: the SDK's own client lists the eight tools, each with
// an object input schema and a description with an example, calls each
// one, reads a session as a resource, and gets a tool error (never a
// crash, and the session goes on) for each bad argument.
func TestConformance(t *testing.T) {
	cs := connect(t, history(t))
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != len(tools) {
		t.Fatalf("ListTools() = %d tools, %v; want %d", len(list.Tools), err, len(tools))
	}
	for _, tool := range list.Tools {
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"type":"object"`) || !strings.Contains(tool.Description, "Example") {
			t.Errorf("tool %s: schema %s, description %q", tool.Name, schema, tool.Description)
		}
	}
	for _, c := range goodCalls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s(%v) = %v, %v; want a text with %q", c.tool, c.args, res, err, c.want)
			if res != nil {
				t.Log(text(res))
			}
		}
	}
	rs, err := cs.ListResources(ctx, nil)
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "lazuli://session/1/1" {
		t.Fatalf("ListResources() = %+v, %v", rs, err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lazuli://session/1/1"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, needle) {
		t.Fatalf("ReadResource() = %+v, %v", rr, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lazuli://session/1/99"}); err == nil {
		t.Error("ReadResource(missing session) succeeded")
	}

	bad := []struct {
		tool string
		args any
	}{
		{recall.ToolSearch, map[string]any{"query": 5}},
		{recall.ToolSearch, map[string]any{}},
		{recall.ToolSearch, map[string]any{"query": "x y", "limit": "many"}},
		{recall.ToolRead, map[string]any{"session": "S1", "from_event": -4}},
		{recall.ToolRead, map[string]any{"session": map[string]any{"a": 1}}},
		{recall.ToolRead, map[string]any{"session": "S1", "cursor": "forged"}},
		{recall.ToolUsage, map[string]any{"by": "moon"}},
		{recall.ToolQuery, map[string]any{"sql": "DELETE FROM events"}},
		{recall.ToolQuery, map[string]any{"sql": strings.Repeat("SELECT 1 UNION ", 3000) + "SELECT 1"}},
		{"no_such_tool", map[string]any{}},
	}
	for _, b := range bad {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: b.tool, Arguments: b.args})
		if err == nil && !res.IsError {
			t.Errorf("%s(%v) = %q, want an error", b.tool, b.args, text(res))
		}
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: recall.ToolSearch, Arguments: goodCalls[0].args}); err != nil || res.IsError {
		t.Errorf("after the bad calls: %v, %v", res, err)
	}
}

// TestServeHostile: over stdio, a line longer than MaxLine, bad JSON and
// nesting deeper than any decoder takes are each answered with a JSON-RPC
// error, and the server answers the next call.
func TestServeHostile(t *testing.T) {
	h := history(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), h, "test", inR, outW) }()
	out := bufio.NewReader(outR)
	type reply struct {
		ID     json.RawMessage
		Result *mcp.CallToolResult
		Error  *struct{ Code int }
	}
	send := func(line string) reply {
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
			t.Fatalf("answer %.200q: %v", data, err)
		}
		return r
	}
	if r := send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	call := func(id int, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, recall.ToolSearch, args)
	}
	hostile := []struct{ name, line string }{
		{"Huge", call(2, `{"query":"`+strings.Repeat("a", 2*MaxLine)+`"}`)},
		{"BadJSON", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":`},
		{"Deep", call(4, `{"query":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`)},
		{"NotJSON", "\x00\xff garbage"},
	}
	for i, tt := range hostile {
		t.Run(tt.name, func(t *testing.T) {
			if r := send(tt.line); r.Error == nil && (r.Result == nil || !r.Result.IsError) {
				t.Errorf("answer to %s: %+v, want an error", tt.name, r)
			}
			next := send(call(100+i, fmt.Sprintf(`{"query":%q}`, needle)))
			if next.Result == nil || next.Result.IsError || !strings.Contains(text(next.Result), "[S1#4]") {
				t.Errorf("the call after %s: %+v", tt.name, next)
			}
		})
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve() = %v after the client hung up", err)
	}
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestHTTP: over streamable HTTP the SDK's client with the token calls a
// tool; without it, or with another, the server answers 401; a listen
// address that is not loopback is refused.
func TestHTTP(t *testing.T) {
	h := history(t)
	ctx := context.Background()
	token, err := NewToken()
	if err != nil || len(token) != 64 {
		t.Fatalf("NewToken() = %q, %v", token, err)
	}
	handler, err := Handler(ctx, h, "test", token)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	for _, tok := range []string{"", "wrong", token + "x"} {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", tok, resp.StatusCode)
		}
	}
	tr := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: recall.ToolSearch, Arguments: map[string]any{"query": needle}})
	if err != nil || res.IsError || !strings.Contains(text(res), "[S1#4]") {
		t.Fatalf("CallTool over HTTP = %v, %v", res, err)
	}

	for _, addr := range []string{"0.0.0.0:0", "192.168.1.2:8080", "[::]:0", "example.com:80", "nonsense"} {
		sctx, cancel := context.WithCancel(ctx)
		err := ServeHTTP(sctx, h, "test", addr, token, func(string) { cancel() }) // stops at once if it listens
		cancel()
		if err == nil {
			t.Errorf("ServeHTTP(%s) served", addr)
		} else if addr != "nonsense" && !errors.Is(err, ErrNotLoopback) {
			t.Errorf("ServeHTTP(%s) = %v, want ErrNotLoopback", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:1", "[::1]:1", "localhost:1"} {
		if err := CheckLoopback(addr); err != nil {
			t.Errorf("CheckLoopback(%s) = %v", addr, err)
		}
	}
}

// TestServerName: the name the runs' configurations give the server is
// the server's own.
func TestServerName(t *testing.T) {
	if ServerName != agents.HistoryServerName {
		t.Errorf("ServerName %q, agents.HistoryServerName %q", ServerName, agents.HistoryServerName)
	}
}
