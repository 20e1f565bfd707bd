package agents

// This file answers claude's permission prompts during a turn: a request
// that a rule decides is answered at once; the rest go to the caller's
// TurnOptions.Ask (the window's dialog, `lazuli run --yes`), and "always"
// is recorded as a session rule, which later requests of the same turn
// and later turns follow.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/lazuli-app/lazuli/permprompt"
	"github.com/lazuli-app/lazuli/store"
)

// PermissionRequest is a tool an agent wants to run and that no rule
// allows or denies.
type PermissionRequest struct {
	SessionID int64
	Tool      string
	Input     json.RawMessage
	// Subject is what an "always" rule would cover: the command or file,
	// "" for the whole tool.
	Subject string
}

// Summary is the request in one line: `Bash: git status`.
func (r PermissionRequest) Summary() string {
	if r.Subject == "" {
		return r.Tool
	}
	return r.Tool + ": " + r.Subject
}

// PermissionAnswer is the user's answer to a PermissionRequest.
type PermissionAnswer int

// The answers.
const (
	AnswerDeny   PermissionAnswer = iota // do not run it
	AnswerAllow                          // run it this once
	AnswerAlways                         // run it, and record a session rule allowing it
)

// DeniedByUser is the message claude is given for a denied request.
const DeniedByUser = "The user denied this in Lazuli."

// permissionServer is the default MCP server command: this executable's
// hidden `mcp-permissions` subcommand.
func permissionServer() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find lazuli's executable for the permission server: %w", err)
	}
	return []string{exe, "mcp-permissions"}, nil
}

// startPrompts starts the broker that answers the turn's permission
// prompts, when claude may ask (a mode other than bypass) and the caller
// can answer; nil otherwise.
func (t *turn) startPrompts(inv *Invocation) (*permprompt.Broker, error) {
	if inv.Backend != Claude || t.opts.Ask == nil || inv.Sandboxed || claudeMode(inv.policy().Mode, inv.AsRoot) == ModeBypass {
		return nil, nil
	}
	server := t.opts.PermissionServer
	if len(server) == 0 {
		var err error
		if server, err = permissionServer(); err != nil {
			return nil, err
		}
	}
	b, err := permprompt.Listen(t.answer)
	if err != nil {
		return nil, err
	}
	inv.PromptTool = &PromptTool{Server: server, Socket: b.Socket(), Tool: permprompt.PromptTool}
	return b, nil
}

// answer answers one permission request of the turn's agent.
func (t *turn) answer(ctx context.Context, req permprompt.Request) permprompt.Response {
	own, err := t.st.Permissions().Of(ctx, t.session)
	if err != nil {
		return permprompt.Deny("Lazuli could not read the session's rules: " + err.Error())
	}
	pol := EffectivePermissions(t.opts.ProjectPermissions, own)
	pol.Dir = t.opts.Dir
	switch action, why := pol.decide(req.ToolName, req.Input); action {
	case ActionAllow:
		return permprompt.Allow(req)
	case ActionDeny:
		return permprompt.Deny(why)
	}
	pr := PermissionRequest{SessionID: t.session, Tool: req.ToolName, Input: req.Input, Subject: ruleSubject(req.ToolName, req.Input)}
	switch t.opts.Ask(ctx, pr) {
	case AnswerAlways:
		rule := AlwaysRule(req.ToolName, req.Input, t.opts.Dir, time.Now())
		if err := t.st.Permissions().Update(ctx, t.session, func(p *store.Permissions) error {
			p.Rules = append(p.Rules, rule)
			return nil
		}); err != nil {
			return permprompt.Deny("Lazuli could not record the rule: " + err.Error())
		}
		return permprompt.Allow(req)
	case AnswerAllow:
		return permprompt.Allow(req)
	}
	return permprompt.Deny(DeniedByUser)
}
