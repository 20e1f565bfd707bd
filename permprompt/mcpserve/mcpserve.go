// Package mcpserve is the MCP server claude runs as its permission prompt
// tool (`claude --permission-prompt-tool mcp__lazuli_permissions__permission_prompt`):
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

	"github.com/lazuli-app/lazuli/mcpline"
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
	ToolName  string         `json:"tool_name"`
	Input     map[string]any `json:"input"`
	ToolUseID string         `json:"tool_use_id,omitempty"`
}

// inputSchema describes input to claude.
var inputSchema = json.RawMessage(`{"type":"object","additionalProperties":false,` +
	`"properties":{"tool_name":{"type":"string","description":"the tool claude wants to run"},` +
	`"input":{"type":"object","additionalProperties":true,"description":"the tool's input"},` +
	`"tool_use_id":{"type":"string","description":"the id of the tool call"}},` +
	`"required":["tool_name","input"]}`)

// NewServer returns the MCP server whose one tool forwards claude's
// permission requests to the Lazuli listening on socket. Arguments it
// cannot read are denied, never an error claude could take otherwise.
func NewServer(socket, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: version}, nil)
	s.AddTool(&mcp.Tool{Name: ToolName, InputSchema: inputSchema,
		Description: "Asks Lazuli, which runs this agent, whether a tool may run; answers allow or deny."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return toolResult(ask(ctx, socket, req.Params.Arguments)), nil
		})
	return s
}

// ask forwards the tool's arguments to Lazuli and returns its answer, or
// a deny when the arguments cannot be read or Lazuli cannot be asked.
func ask(ctx context.Context, socket string, args json.RawMessage) permprompt.Response {
	var in input
	if err := json.Unmarshal(args, &in); err != nil {
		return permprompt.Deny(fmt.Sprintf("Lazuli could not read the permission request: %v", err))
	}
	if in.ToolName == "" || in.Input == nil {
		return permprompt.Deny("Lazuli could not read the permission request: it names no tool or no input")
	}
	raw, err := json.Marshal(in.Input)
	if err != nil {
		return permprompt.Deny(fmt.Sprintf("Lazuli could not read the permission request: %v", err))
	}
	resp, err := permprompt.Ask(ctx, socket, permprompt.Request{ToolName: in.ToolName, Input: raw, ToolUseID: in.ToolUseID})
	if err != nil {
		return permprompt.Deny(fmt.Sprintf("Lazuli could not be asked: %v", err))
	}
	return resp
}

// toolResult is resp as the one text block claude parses.
func toolResult(resp permprompt.Response) *mcp.CallToolResult {
	text, err := json.Marshal(resp)
	if err != nil { // a Response of strings and valid JSON always marshals
		text = []byte(`{"behavior":"deny","message":"Lazuli could not write its answer"}`)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}
}

// MaxLine is the longest line the server reads from claude: the broker's
// limit on a request (permprompt.MaxRequest). A longer line is never held
// whole: it is answered with a deny (a tool call) or an error.
const MaxLine = permprompt.MaxRequest

// Serve runs the server on in and out (stdin and stdout) until the client
// hangs up or ctx ends. A line longer than MaxLine, or one that is not a
// JSON-RPC message, is answered (a tool call with a deny, anything else
// with a JSON-RPC error) and the server goes on serving; the SDK alone
// would stop at the first such line.
func Serve(ctx context.Context, socket, version string, in io.ReadCloser, out io.WriteCloser) error {
	w := &mcpline.LockedWriter{W: out}
	pr, pw := io.Pipe()
	deny := func(why string) any {
		return toolResult(permprompt.Deny("Lazuli could not read the permission request: " + why))
	}
	go func() { pw.CloseWithError(mcpline.Filter(in, pw, w, MaxLine, deny)) }()
	defer in.Close()
	defer pr.Close()
	return NewServer(socket, version).Run(ctx, &mcp.IOTransport{Reader: pr, Writer: w})
}
