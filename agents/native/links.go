package native

// This file links the sub-agent sessions an import stored to their
// parent's session and to the parent's call that started each (Claude's
// Task/Agent tool_use, Codex's spawn call), as a sub-agent whose work
// arrived in its parent's stream is linked when it is created: so that
// "open sub-agent ›" on the call's card and "↖ parent" on the sub-agent
// work for imported history too.
//
// The call is found, first to last, in:
//   - the sub-agent's meta file beside its transcript
//     (<id>/subagents/agent-<x>.meta.json: toolUseId; Claude 2.1.x; Qwen
//     Code's subagents/<id>/agent-<x>.meta.json);
//   - its parent's transcript: the call's result names the sub-agent
//     (Claude: toolUseResult.agentId beside the tool_result's
//     tool_use_id, from 2.0 on; Codex: collab_agent_spawn_end's call_id
//     and new_thread_id; OpenCode: the task tool part's callID and its
//     state.metadata.sessionId, the child session; Gemini CLI: the
//     invoke_agent call's agentId in the parent's chat record);
//   - the parent's stored events, when the files are gone: a result that
//     says "agentId: <x>" (Claude 2.1.x).
//
// A sub-agent whose call none of them names (Claude's "Warmup" agents
// start with no call) is linked to its parent without one: "↖ parent"
// works, and the next import that appends to the parent looks again.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// LinkSubagents links every sub-agent session of st imported from native
// history that has no link to its parent yet, and those linked without
// their call whose parent session is one of retry, and returns how many
// links it wrote. It reads the transcripts' files when they are still
// there, else the stored events. It writes nothing when every sub-agent is
// linked (one query), so it is cheap to call after every import and when
// a window opens a store it may write.
func LinkSubagents(ctx context.Context, st *store.Store, retry ...int64) (int, error) {
	if st.ReadOnly() {
		return 0, nil // shown as it is; a store that may be written is linked
	}
	subs, err := st.Subagents().Unlinked(ctx, retry...)
	if err != nil || len(subs) == 0 {
		return 0, err
	}
	byParent := map[int64][]store.NativeSubagent{}
	var order []int64
	for _, s := range subs {
		if _, ok := byParent[s.ParentID]; !ok {
			order = append(order, s.ParentID)
		}
		byParent[s.ParentID] = append(byParent[s.ParentID], s)
	}
	var links []store.SubagentLink
	for _, parent := range order {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		calls, err := subagentCalls(ctx, st, byParent[parent])
		if err != nil {
			return 0, err
		}
		for _, s := range byParent[parent] {
			links = append(links, store.SubagentLink{SessionID: s.SessionID, ParentID: s.ParentID, ToolUseID: calls[s.SessionID]})
		}
	}
	return st.Subagents().Link(ctx, links)
}

// subagentCalls finds the parent's call of each of subs (all of one
// parent), by sub-agent session; a sub-agent left out has none found.
func subagentCalls(ctx context.Context, st *store.Store, subs []store.NativeSubagent) (map[int64]string, error) {
	out := map[int64]string{}
	missing := func() bool { return len(out) < len(subs) }
	for _, s := range subs {
		if id := metaToolUseID(s); id != "" {
			out[s.SessionID] = id
		} else if id := inFileCall(s); id != "" {
			out[s.SessionID] = id
		}
	}
	if missing() {
		byAgent := transcriptCalls(subs[0].Agent, subs[0].ParentPath)
		for _, s := range subs {
			if id := byAgent[agentKey(s)]; out[s.SessionID] == "" && id != "" {
				out[s.SessionID] = id
			}
		}
	}
	if missing() {
		if err := storedCalls(ctx, st, subs, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// agentKey is how a parent's transcript names sub-agent s: Claude's
// agentId (its file is agent-<agentId>.jsonl), Codex's thread id,
// OpenCode's child session id.
func agentKey(s store.NativeSubagent) string {
	if s.Agent == Codex || s.Agent == OpenCode || s.Agent == Gemini {
		return s.ID
	}
	stem := s.ID[strings.LastIndex(s.ID, "/")+1:]
	return strings.TrimPrefix(stem, "agent-")
}

// metaToolUseID reads the toolUseId of the meta file Claude (and Qwen
// Code) keeps beside a sub-agent's transcript; "" when there is none.
func metaToolUseID(s store.NativeSubagent) string {
	if s.Agent != Claude && s.Agent != Qwen || !strings.HasSuffix(s.Path, ".jsonl") {
		return ""
	}
	f, err := openRegular(metaPath(s.Path))
	if err != nil {
		return ""
	}
	defer f.Close()
	var meta struct {
		ToolUseID string `json:"toolUseId"`
	}
	// A meta file is a few hundred bytes; more is not one.
	if err := json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&meta); err != nil {
		return ""
	}
	return meta.ToolUseID
}

// transcriptCalls reads a parent's transcript for the calls whose results
// name a sub-agent: the call's id by the sub-agent's agentKey. Only lines
// that mention one are decoded. A file that cannot be read yields none.
func transcriptCalls(agent, path string) map[string]string {
	out := map[string]string{}
	f, err := openRegular(path)
	if err != nil {
		return out
	}
	defer f.Close()
	marker, take := []byte(`"agentId"`), claudeCall
	switch agent {
	case Codex:
		marker, take = []byte(`collab_agent_spawn_end`), codexCall
	case OpenCode:
		marker, take = []byte(`"sessionId"`), openCodeCall
	case Gemini:
		take = geminiCall // marker: "agentId" too
	}
	_ = eachCompleteLine(context.Background(), f, func(line []byte, _ int64, tooLong bool) error {
		if tooLong || !bytes.Contains(line, marker) {
			return nil
		}
		if o, ok := parse.DecodeObject(bytes.TrimPrefix(line, parse.BOM)); ok {
			take(o, out)
		}
		return nil
	}) // a read error ends the scan: what was found is kept
	return out
}

// claudeCall takes a Claude transcript line whose toolUseResult names the
// sub-agent that the tool_result's call started.
func claudeCall(o parse.Object, out map[string]string) {
	agentID := o.Obj("toolUseResult").Str("agentId")
	if agentID == "" {
		return
	}
	var content []struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
	}
	if json.Unmarshal(o.Obj("message")["content"], &content) != nil {
		return
	}
	for _, c := range content {
		if c.Type == "tool_result" && c.ToolUseID != "" {
			if _, ok := out[agentID]; !ok {
				out[agentID] = c.ToolUseID
			}
			return
		}
	}
}

// codexCall takes a Codex rollout line that says which thread a spawn
// call started.
func codexCall(o parse.Object, out map[string]string) {
	pl := o.Obj("payload")
	if pl.Str("type") != "collab_agent_spawn_end" {
		return
	}
	if thread, call := pl.Str("new_thread_id"), pl.Str("call_id"); thread != "" && call != "" {
		if _, ok := out[thread]; !ok {
			out[thread] = call
		}
	}
}

// geminiCall takes a Gemini CLI chat record whose invoke_agent call names
// the sub-agent it started (toolCalls[].agentId beside the call's id).
func geminiCall(o parse.Object, out map[string]string) {
	for _, c := range o.Objs("toolCalls") {
		if agent, id := c.Str("agentId"), c.Str("id"); agent != "" && id != "" {
			if _, ok := out[agent]; !ok {
				out[agent] = id
			}
		}
	}
}

// openCodeCall takes an OpenCode message line (as the mirror writes it)
// whose task tool parts name the child session each started.
func openCodeCall(o parse.Object, out map[string]string) {
	var parts []struct {
		Type   string `json:"type"`
		CallID string `json:"callID"`
		State  struct {
			Metadata struct {
				SessionID string `json:"sessionId"`
			} `json:"metadata"`
		} `json:"state"`
	}
	if json.Unmarshal(o["parts"], &parts) != nil {
		return
	}
	for _, p := range parts {
		child := p.State.Metadata.SessionID
		if p.Type != "tool" || p.CallID == "" || child == "" {
			continue
		}
		if _, ok := out[child]; !ok {
			out[child] = p.CallID
		}
	}
}

// storedCalls finds, in the parent's stored events, the calls of the
// Claude sub-agents of subs that out has none for: a result that says
// "agentId: <x>" (Claude 2.1.x), in its stored text or its full text.
// (The stored call keeps no prompt to match the sub-agent's with.)
func storedCalls(ctx context.Context, st *store.Store, subs []store.NativeSubagent, out map[int64]string) error {
	parent := subs[0].ParentID
	events, err := st.Events().All(ctx, parent)
	if err != nil {
		return err
	}
	full, err := st.FullText().Of(ctx, parent)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, id := range out {
		used[id] = true
	}
	for _, s := range subs {
		if out[s.SessionID] != "" || s.Agent != Claude {
			continue
		}
		mark := "agentId: " + agentKey(s)
		for _, e := range events {
			id := e.Event.ToolUseID
			if e.Event.Kind != codec.KindToolResult || id == "" || used[id] {
				continue
			}
			if containsWord(e.Event.Content, mark) || full[e.Seq].Field == store.FullContent && containsWord(full[e.Seq].Text, mark) {
				out[s.SessionID], used[id] = id, true
				break
			}
		}
	}
	return nil
}

// containsWord reports whether s holds mark not followed by more of an id.
func containsWord(s, mark string) bool {
	for i := strings.Index(s, mark); i >= 0; {
		end := i + len(mark)
		if end == len(s) || !isIDByte(s[end]) {
			return true
		}
		next := strings.Index(s[end:], mark)
		if next < 0 {
			return false
		}
		i = end + next
	}
	return false
}

func isIDByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '-' || b == '_'
}

// metaPath is where Claude keeps a sub-agent transcript's meta file.
func metaPath(transcript string) string {
	return filepath.Join(filepath.Dir(transcript), strings.TrimSuffix(filepath.Base(transcript), ".jsonl")+".meta.json")
}
