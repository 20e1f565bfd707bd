package native

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/internal/nativetree"
	"github.com/lazuli-app/lazuli/store"
)

// subagentCallsOfFixtures are the sub-agents of the shared fixtures with
// the parent's call that started each, as the parents' transcripts say
// (toolUseResult.agentId beside the tool_result's tool_use_id) and, for
// the real CLI's run, its meta file (toolUseId).
var subagentCallsOfFixtures = []struct {
	name, parent, sub, call string
	ok                      bool // found from the stored events alone, once the files are gone
}{
	{"subagents folder, 2.1.114", "ef958aa1-0e93-49f0-bb71-150f63befcd1", "agent-a4ca7529859c158c2", "toolu_01GmrK6tgdD9D5xD6W5X9UUy", true},
	{"subagents folder, 2.1.114, second", "ef958aa1-0e93-49f0-bb71-150f63befcd1", "agent-a52886dc180afb356", "toolu_016neBD9WjCCZqzRTP3afGDT", true},
	{"subagents folder, 2.1.17", "29ccd257-68b1-427f-ae5f-6524b7cb6f20", "agent-a2271d1", "toolu_01SXaWzD5YZ73zGwchbcxeWi", true},
	// Its transcript starts after its prompt and the result does not
	// name it: only the parent's transcript knows.
	{"flat, 2.0.55", "a7da6a22-facc-4fcd-8bab-f83c87862004", "agent-c8d9b115", "toolu_01MmDqMXjZLvzbNFLGH2ZA3k", false},
	{"meta file, real CLI", "db3c07df-3a0b-4d09-be64-0a5c202b0e91", "agent-a3e0146a186a8e622", "toolu_fkm_0_0", true},
}

// fixtureSessions scans the shared transcripts (laid out as Claude and
// Codex keep them) and the real CLI's sub-agent run, with its meta file.
func fixtureSessions(t *testing.T) (nativetree.Tree, []Session) {
	t.Helper()
	tree := nativetree.ForTest(t)
	real := filepath.Join(t.TempDir(), "projects")
	if err := os.CopyFS(real, os.DirFS(fixtures.Dir(t, "real-cli/claude-g-subagent/transcripts/claude/projects"))); err != nil {
		t.Fatal(err)
	}
	scan := mustScan(t, Options{Dirs: Dirs{Claude: tree.ClaudeDir, Codex: tree.CodexDir}})
	more := mustScan(t, Options{Dirs: Dirs{Claude: real}})
	return tree, append(scan.Sessions, more.Sessions...)
}

// sessionsByID maps each result's native id to its session.
func sessionsByID(res []Result) map[string]int64 {
	out := map[string]int64{}
	for _, r := range res {
		out[r.ID] = r.SessionID
	}
	return out
}

// checkLinks checks both ways of each fixture's link: from the parent's
// call to the sub-agent's session, and back. With stored, only those
// found from the stored events are expected with their call.
func checkLinks(t *testing.T, st *store.Store, ids map[string]int64, storedOnly bool) {
	t.Helper()
	ctx := context.Background()
	for _, tc := range subagentCallsOfFixtures {
		parent, sub := ids[tc.parent], ids[tc.parent+"/"+tc.sub]
		if parent == 0 || sub == 0 {
			t.Errorf("%s: not imported (parent S%d, sub-agent S%d)", tc.name, parent, sub)
			continue
		}
		want := tc.call
		if storedOnly && !tc.ok {
			want = ""
		}
		if want != "" {
			if got, ok, err := st.Subagents().Session(ctx, parent, want); err != nil || !ok || got != sub {
				t.Errorf("%s: Subagents().Session(S%d, %q) = S%d, %v, %v; want S%d", tc.name, parent, want, got, ok, err, sub)
			}
		}
		l, ok, err := st.Subagents().Parent(ctx, sub)
		if err != nil || !ok || l.ParentID != parent || l.ToolUseID != want {
			t.Errorf("%s: Subagents().Parent(S%d) = %+v, %v, %v; want parent S%d, call %q", tc.name, sub, l, ok, err, parent, want)
		}
	}
}

// TestImportNativeLinksSubagents: a sub-agent imported from native history
// is linked to its parent's session and to the call that started it, as
// one from a stream is.
func TestImportNativeLinksSubagents(t *testing.T) {
	_, sessions := fixtureSessions(t)
	st := mustOpenStore(t)
	res := mustImport(t, st, sessions, ImportOptions{FallbackWorktree: "main", ClaudeHome: os.DevNull})
	checkLinks(t, st, sessionsByID(res), false)
	mustCheck(t, st)
	// The call is one the parent's card shows "open sub-agent ›" on.
	ids := sessionsByID(res)
	for _, tc := range subagentCallsOfFixtures {
		evs, err := st.Events().All(context.Background(), ids[tc.parent])
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range evs {
			found = found || isAgentCall(e.Event) && e.Event.ToolUseID == tc.call
		}
		if !found {
			t.Errorf("%s: the parent has no Agent/Task call %s", tc.name, tc.call)
		}
	}
}

// TestLinkSubagentsRepairsOldImports: a store imported before Lazuli linked
// native sub-agents (the import without its link step) is linked by
// LinkSubagents, from the files or, when they are gone, from the stored
// events; again it writes nothing, and a read-only store is left as it is.
func TestLinkSubagentsRepairsOldImports(t *testing.T) {
	for _, filesGone := range []bool{false, true} {
		name := "files"
		if filesGone {
			name = "stored events"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tree, sessions := fixtureSessions(t)
			st := mustOpenStore(t)
			res, err := importSessions(ctx, st, sessions, ImportOptions{FallbackWorktree: "main", ClaudeHome: os.DevNull})
			if err != nil {
				t.Fatal(err)
			}
			ids := sessionsByID(res)
			old := subagentCallsOfFixtures[0]
			if _, ok, _ := st.Subagents().Parent(ctx, ids[old.parent+"/"+old.sub]); ok {
				t.Fatal("the import without links linked a sub-agent: the old store is not old")
			}
			if filesGone {
				if err := os.RemoveAll(tree.Home); err != nil {
					t.Fatal(err)
				}
				for _, n := range sessions {
					if n.ID == "db3c07df-3a0b-4d09-be64-0a5c202b0e91" {
						if err := os.RemoveAll(filepath.Dir(n.Path)); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			ro, err := store.OpenReadOnly(ctx, st.Path())
			if err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(st.Path())
			if n, err := LinkSubagents(ctx, ro); n != 0 || err != nil {
				t.Errorf("LinkSubagents(read-only) = %d, %v; want 0, nil", n, err)
			}
			ro.Close()
			if after, _ := os.ReadFile(st.Path()); !bytes.Equal(before, after) {
				t.Error("LinkSubagents changed a store opened read-only")
			}

			n, err := LinkSubagents(ctx, st)
			if err != nil || n < len(subagentCallsOfFixtures) {
				t.Fatalf("LinkSubagents = %d, %v; want at least %d", n, err, len(subagentCallsOfFixtures))
			}
			checkLinks(t, st, ids, filesGone)
			mustCheck(t, st)

			before, _ = os.ReadFile(st.Path())
			if n, err := LinkSubagents(ctx, st); n != 0 || err != nil {
				t.Errorf("LinkSubagents again = %d, %v; want 0, nil", n, err)
			}
			if after, _ := os.ReadFile(st.Path()); !bytes.Equal(before, after) {
				t.Error("LinkSubagents with nothing to link changed the store")
			}
		})
	}
}

// TestImportNativeLinksSubagentBeforeItsCall: a sub-agent imported while
// its parent's transcript does not yet hold the call is linked to the
// parent without a call; the import that brings the call links it.
func TestImportNativeLinksSubagentBeforeItsCall(t *testing.T) {
	ctx := context.Background()
	src := fixtures.Dir(t, "transcripts")
	parentLines, err := os.ReadFile(filepath.Join(src, "B_claude-code-log_29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	subLines, err := os.ReadFile(filepath.Join(src, "B_claude-code-log_29ccd257-subagents--agent-a2271d1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	projects := filepath.Join(t.TempDir(), "projects")
	dir := filepath.Join(projects, "-src-experiments-claude-p")
	parentPath := filepath.Join(dir, "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl")
	subPath := filepath.Join(dir, "29ccd257-68b1-427f-ae5f-6524b7cb6f20", "subagents", "agent-a2271d1.jsonl")
	if err := os.MkdirAll(filepath.Dir(subPath), 0o755); err != nil {
		t.Fatal(err)
	}
	// The first three lines: the prompt, before the Task call.
	head := nthLineEnd(parentLines, 3)
	if err := os.WriteFile(parentPath, parentLines[:head], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(subPath, subLines, 0o644); err != nil {
		t.Fatal(err)
	}
	st := mustOpenStore(t)
	ids := sessionsByID(mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Claude: projects}}).Sessions, ImportOptions{ClaudeHome: os.DevNull}))
	parent, sub := ids["29ccd257-68b1-427f-ae5f-6524b7cb6f20"], ids["29ccd257-68b1-427f-ae5f-6524b7cb6f20/agent-a2271d1"]
	if l, ok, err := st.Subagents().Parent(ctx, sub); err != nil || !ok || l.ParentID != parent || l.ToolUseID != "" {
		t.Fatalf("before the call: Subagents().Parent(S%d) = %+v, %v, %v; want parent S%d without a call", sub, l, ok, err, parent)
	}
	if err := os.WriteFile(parentPath, parentLines, 0o644); err != nil {
		t.Fatal(err)
	}
	mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Claude: projects}}).Sessions, ImportOptions{ClaudeHome: os.DevNull})
	if got, ok, err := st.Subagents().Session(ctx, parent, "toolu_01SXaWzD5YZ73zGwchbcxeWi"); err != nil || !ok || got != sub {
		t.Errorf("after the call: Subagents().Session = S%d, %v, %v; want S%d", got, ok, err, sub)
	}
}

// nthLineEnd is the offset just after the n-th line of data.
func nthLineEnd(data []byte, n int) int {
	off := 0
	for range n {
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	return off
}

func TestContainsWord(t *testing.T) {
	for _, tc := range []struct {
		s, mark string
		want    bool
	}{
		{"agentId: a2271d1 (use SendMessage", "agentId: a2271d1", true},
		{"agentId: a2271d1", "agentId: a2271d1", true},
		{"agentId: a2271d1f", "agentId: a2271d1", false},
		{"agentId: a2271d1f and agentId: a2271d1\n", "agentId: a2271d1", true},
		{"no id here", "agentId: a2271d1", false},
	} {
		if got := containsWord(tc.s, tc.mark); got != tc.want {
			t.Errorf("containsWord(%q, %q) = %v, want %v", tc.s, tc.mark, got, tc.want)
		}
	}
}

// isAgentCall reports a Claude Agent/Task call, as the card that offers
// "open sub-agent ›" does (views.isSubagentCall).
func isAgentCall(e codec.Event) bool {
	return e.Kind == codec.KindToolCall && e.ToolUseID != "" && codec.IsSubagentTool(e.ToolName)
}

// TestImportNativeAgainLinksOldImports: importing again a history that an
// import before Lazuli linked native sub-agents stored, with nothing new
// in it, links the sub-agents (how a store is repaired from the command
// line: lazuli import-native).
func TestImportNativeAgainLinksOldImports(t *testing.T) {
	ctx := context.Background()
	_, sessions := fixtureSessions(t)
	st := mustOpenStore(t)
	res, err := importSessions(ctx, st, sessions, ImportOptions{FallbackWorktree: "main", ClaudeHome: os.DevNull})
	if err != nil {
		t.Fatal(err)
	}
	again := mustImport(t, st, sessions, ImportOptions{ClaudeHome: os.DevNull})
	if got := outcomes(again); got[Imported]+got[Appended] != 0 {
		t.Errorf("importing again: %v, want nothing new", got)
	}
	checkLinks(t, st, sessionsByID(res), false)
}

// TestTranscriptCalls reads which call started which sub-agent from a
// parent's transcript lines: Claude's tool_result with toolUseResult's
// agentId, Codex's collab_agent_spawn_end; other lines, and a first
// mention's second copy, are left out.
func TestTranscriptCalls(t *testing.T) {
	for _, tc := range []struct {
		name, agent string
		lines       []string
		want        map[string]string
	}{
		{"claude", Claude, []string{
			`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"done"}]},"toolUseResult":{"status":"completed","agentId":"a1"}}`,
			`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_2","type":"tool_result","content":"again"}]},"toolUseResult":{"agentId":"a1"}}`,
			`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_3","type":"tool_result","content":"agentId: a3"}]},"toolUseResult":{"stdout":"x"}}`,
			`not json "agentId"`,
		}, map[string]string{"a1": "toolu_1"}},
		{"codex", Codex, []string{
			`{"timestamp":"2026-08-03T10:48:56.000Z","type":"event_msg","payload":{"type":"collab_agent_spawn_end","call_id":"call_9","sender_thread_id":"p","new_thread_id":"t-child","prompt":"look"}}`,
			`{"type":"event_msg","payload":{"type":"collab_agent_spawn_end","call_id":"","new_thread_id":"t-none"}}`,
			`{"type":"response_item","payload":{"type":"function_call","name":"spawn_agent","call_id":"call_9"}}`,
		}, map[string]string{"t-child": "call_9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "parent.jsonl")
			if err := os.WriteFile(path, []byte(strings.Join(tc.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := transcriptCalls(tc.agent, path); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("transcriptCalls(%s) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
	if got := transcriptCalls(Claude, filepath.Join(t.TempDir(), "gone.jsonl")); len(got) != 0 {
		t.Errorf("transcriptCalls(missing file) = %v, want none", got)
	}
}

// TestImportNativeLinksCodexSubagent: a Codex thread spawned by another
// (its session_meta names the parent thread) is linked to the parent's
// spawn call, which the parent's collab_agent_spawn_end names.
func TestImportNativeLinksCodexSubagent(t *testing.T) {
	const parentID, childID = "0199aaaa-0000-7000-8000-000000000001", "0199bbbb-0000-7000-8000-000000000002"
	dir := filepath.Join(t.TempDir(), "sessions")
	day := filepath.Join(dir, "2026", "08", "03")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(id string, lines ...string) {
		t.Helper()
		path := filepath.Join(day, "rollout-2026-08-03T10-48-56-"+id+".jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const ts = `"timestamp":"2026-08-03T10:48:56.000Z"`
	write(parentID,
		`{`+ts+`,"type":"session_meta","payload":{"id":"`+parentID+`",`+ts+`,"cwd":"/w","originator":"codex_cli_rs","cli_version":"0.146.0"}}`,
		`{`+ts+`,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"ask a helper"}]}}`,
		`{`+ts+`,"type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{\"message\":\"look\"}","call_id":"call_9"}}`,
		`{`+ts+`,"type":"event_msg","payload":{"type":"collab_agent_spawn_end","call_id":"call_9","sender_thread_id":"`+parentID+`","new_thread_id":"`+childID+`","prompt":"look"}}`,
		`{`+ts+`,"type":"response_item","payload":{"type":"function_call_output","call_id":"call_9","output":"spawned"}}`)
	write(childID,
		`{`+ts+`,"type":"session_meta","payload":{"id":"`+childID+`",`+ts+`,"cwd":"/w","originator":"codex_cli_rs","cli_version":"0.146.0",`+
			`"source":{"subagent":{"thread_spawn":{"parent_thread_id":"`+parentID+`","depth":1,"agent_nickname":"helper"}}}}}`,
		`{`+ts+`,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"look"}]}}`,
		`{`+ts+`,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"seen"}]}}`)
	st := mustOpenStore(t)
	ids := sessionsByID(mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Codex: dir}}).Sessions, ImportOptions{}))
	parent, child := ids[parentID], ids[childID]
	if parent == 0 || child == 0 {
		t.Fatalf("imported %v", ids)
	}
	ctx := context.Background()
	if got, ok, err := st.Subagents().Session(ctx, parent, "call_9"); err != nil || !ok || got != child {
		t.Errorf("Subagents().Session(S%d, call_9) = S%d, %v, %v; want S%d", parent, got, ok, err, child)
	}
	if l, ok, err := st.Subagents().Parent(ctx, child); err != nil || !ok || l.ParentID != parent {
		t.Errorf("Subagents().Parent(S%d) = %+v, %v, %v; want S%d", child, l, ok, err, parent)
	}
}

// TestImportNativeLinksSubagentFromItsMetaFile: a sub-agent whose call's
// result is not in its parent's transcript yet (the parent still running)
// is linked to the call its meta file names.
func TestImportNativeLinksSubagentFromItsMetaFile(t *testing.T) {
	const parentID = "db3c07df-3a0b-4d09-be64-0a5c202b0e91"
	projects := filepath.Join(t.TempDir(), "projects")
	if err := os.CopyFS(projects, os.DirFS(fixtures.Dir(t, "real-cli/claude-g-subagent/transcripts/claude/projects"))); err != nil {
		t.Fatal(err)
	}
	parentPath := filepath.Join(projects, "-tmp-fakemodel-scratch-claude-g-subagent-work", parentID+".jsonl")
	data, err := os.ReadFile(parentPath)
	if err != nil {
		t.Fatal(err)
	}
	// Up to the Agent call, before its result (line 25).
	if err := os.WriteFile(parentPath, data[:nthLineEnd(data, 24)], 0o644); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data[:nthLineEnd(data, 24)], []byte(`"toolUseResult"`)) {
		t.Fatal("the parent's head holds the call's result: the test would not test the meta file")
	}
	st := mustOpenStore(t)
	ids := sessionsByID(mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Claude: projects}}).Sessions, ImportOptions{ClaudeHome: os.DevNull}))
	parent, sub := ids[parentID], ids[parentID+"/agent-a3e0146a186a8e622"]
	if got, ok, err := st.Subagents().Session(context.Background(), parent, "toolu_fkm_0_0"); err != nil || !ok || got != sub || sub == 0 {
		t.Errorf("Subagents().Session(S%d, toolu_fkm_0_0) = S%d, %v, %v; want S%d", parent, got, ok, err, sub)
	}
}
