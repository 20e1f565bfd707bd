// Package mcpserve serves a project's history (package recall) as a
// read-only MCP server, `lazuli mcp`: over stdio (Serve) for an agent CLI
// that runs it, or streamable HTTP on a loopback address behind a bearer
// token (ServeHTTP), on the official MCP Go SDK. It never imports Fyne.
package mcpserve

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lazuli-app/lazuli/mcpline"
	"github.com/lazuli-app/lazuli/recall"
)

// ServerName is the server's name in the agents' MCP configurations: its
// tools are mcp__lazuli__search_sessions and so on in claude.
const ServerName = "lazuli"

// MaxLine is the longest request line Serve reads; a longer one is
// answered with an error without being held whole.
const MaxLine = 1 << 20

// instructions tell the agent what the server is for.
const instructions = "Lazuli keeps every earlier agent session of this project (Claude Code, Codex, …). " +
	"Before redoing work, search it: search_sessions for a word, then read_session at a hit's event. " +
	"Answers cite sessions and events as [S12#340]; cite them back to the user. Everything is read-only."

// tools describes each tool: its name, what it does, an example.
var tools = map[string]string{
	recall.ToolSearch: "Full-text search of every earlier session of this project: prompts, replies, tool calls and tool output. " +
		"Returns hits newest first with session, event, worktree, time, snippet and a lazuli:// link. " +
		`Example: {"query":"flaky test","since":"30d","agent":"claude"}.`,
	recall.ToolRead: "The transcript of one session as compact Markdown, each event under its citation [S12#340], thinking left out unless asked. " +
		`Long sessions come in parts: pass the cursor back. Example: {"session":"S12","from_event":340}.`,
	recall.ToolRecentEdits: "The files sessions changed, newest first, with the session and event; with a path, the diff of each edit. " +
		`Example: {"path":"internal/parser.go","limit":5}.`,
	recall.ToolFileHistory: "Every session that changed one file, oldest first, with the diffs. " +
		`Example: {"path":"cmd/main.go"}.`,
	recall.ToolRefs: "The pull requests, issues, commits, branches and URLs sessions mention, with the event that first does. " +
		`Example: {"session":"S12"}, or {} for all sessions.`,
	recall.ToolUsage: "Tokens and cost (the lazuli stats rows), grouped. " +
		`Example: {"by":"model","since":"7d"}; by is total, day, model, backend, worktree or session.`,
	recall.ToolTried: "What earlier sessions tried about a topic and where they struggled: failing commands, tool errors, calls retried unchanged, " +
		`files edited back and forth, the user's corrections, each with its citations. Example: {"topic":"go test"}.`,
	recall.ToolQuery: "One read-only SQL query (SQLite) over the views sessions, turns, usage, files, refs, tools and events. " +
		"At most limit rows; the answer says when it was truncated. " +
		`Example: {"sql":"SELECT path, COUNT(*) FROM files WHERE action = 'edit' GROUP BY path ORDER BY 2 DESC LIMIT 10"}.`,
}

// NewServer returns the MCP server of h: its tools and its sessions as
// resources. Bad arguments are tool errors the agent reads; nothing the
// agent sends can write to the stores.
func NewServer(ctx context.Context, h *recall.History, version string) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "Lazuli history", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	add(s, recall.ToolSearch, h.SearchSessions)
	add(s, recall.ToolRead, h.ReadSession)
	add(s, recall.ToolRecentEdits, h.RecentEdits)
	add(s, recall.ToolFileHistory, h.FileHistory)
	add(s, recall.ToolRefs, h.SessionRefs)
	add(s, recall.ToolUsage, h.Usage)
	add(s, recall.ToolTried, h.WhatWasTried)
	add(s, recall.ToolQuery, h.Query)
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		session, err := recall.ParseSessionURI(req.Params.URI)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		a, err := h.ReadSession(ctx, recall.ReadArgs{Session: session, Paging: recall.Paging{MaxChars: recall.MaxMaxChars}})
		if errors.Is(err, recall.ErrBadArgument) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: a.Text}}}, nil
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "session", URITemplate: "lazuli://session/{store}/{id}", MIMEType: "text/markdown",
		Description: "A session's transcript (the first part of read_session): store is its @N (1 for the first), id its number."}, read)
	rs, err := h.SessionResources(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		s.AddResource(&mcp.Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: "text/markdown"}, read)
	}
	return s, nil
}

// add registers one tool: the SDK infers its input schema from A and
// validates the arguments against it before fn runs.
func add[A any](s *mcp.Server, name string, fn func(context.Context, A) (recall.Answer, error)) {
	readOnly := true
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: tools[name], Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly, OpenWorldHint: new(bool)}},
		func(ctx context.Context, _ *mcp.CallToolRequest, in A) (*mcp.CallToolResult, any, error) {
			a, err := fn(ctx, in)
			if err != nil {
				return nil, nil, err // a tool error: the agent reads it
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
}

// Serve runs the server of h on in and out (stdin and stdout) until the
// client hangs up or ctx ends. A line longer than MaxLine, or one that is
// not a JSON-RPC message (bad JSON, nesting too deep), is answered with a
// JSON-RPC error and the server goes on serving.
func Serve(ctx context.Context, h *recall.History, version string, in io.ReadCloser, out io.WriteCloser) error {
	s, err := NewServer(ctx, h, version)
	if err != nil {
		return err
	}
	w := &mcpline.LockedWriter{W: out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(mcpline.Filter(in, pw, w, MaxLine, nil)) }()
	defer in.Close()
	defer pr.Close()
	return s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: w})
}
