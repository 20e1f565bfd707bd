// Package mcpserve is the MCP server claude runs as its permission prompt
// tool (`claude --permission-prompt-tool mcp__lazuli__permission_prompt`):
// `lazuli mcp-permissions --socket S` serves it over stdio and forwards
// each request to the Lazuli listening on S (package permprompt), which
// answers allow or deny. It uses the official MCP Go SDK.
package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lazuli-app/lazuli/permprompt"
)

// The names of the server and its tool (see permprompt.PromptTool).
const (
	ServerName = permprompt.ServerName
	ToolName   = permprompt.ToolName
	PromptTool = permprompt.PromptTool
)

// input is what claude passes the tool.
type input struct {
	ToolName  string         `json:"tool_name" jsonschema:"the tool claude wants to run"`
	Input     map[string]any `json:"input" jsonschema:"the tool's input"`
	ToolUseID string         `json:"tool_use_id,omitempty" jsonschema:"the id of the tool call"`
}

// NewServer returns the MCP server whose one tool forwards claude's
// permission requests to the Lazuli listening on socket.
func NewServer(socket, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: version}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: ToolName,
		Description: "Asks Lazuli, which runs this agent, whether a tool may run; answers allow or deny."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in input) (*mcp.CallToolResult, any, error) {
			raw, err := json.Marshal(in.Input)
			if err != nil || in.Input == nil {
				raw = json.RawMessage("{}")
			}
			resp, err := permprompt.Ask(ctx, socket, permprompt.Request{ToolName: in.ToolName, Input: raw, ToolUseID: in.ToolUseID})
			if err != nil {
				resp = permprompt.Deny(fmt.Sprintf("Lazuli could not be asked: %v", err))
			}
			text, err := json.Marshal(resp)
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil, nil
		})
	return s
}

// Serve runs the server on in and out (stdin and stdout) until the client
// hangs up or ctx ends.
func Serve(ctx context.Context, socket, version string, in io.ReadCloser, out io.WriteCloser) error {
	return NewServer(socket, version).Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
}
