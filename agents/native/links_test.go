package native

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
	scan := mustScan(t, Options{ClaudeDir: tree.ClaudeDir, CodexDir: tree.CodexDir})
	more := mustScan(t, Options{ClaudeDir: real})
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
	ids := sessionsByID(mustImport(t, st, mustScan(t, Options{ClaudeDir: projects}).Sessions, ImportOptions{ClaudeHome: os.DevNull}))
	parent, sub := ids["29ccd257-68b1-427f-ae5f-6524b7cb6f20"], ids["29ccd257-68b1-427f-ae5f-6524b7cb6f20/agent-a2271d1"]
	if l, ok, err := st.Subagents().Parent(ctx, sub); err != nil || !ok || l.ParentID != parent || l.ToolUseID != "" {
		t.Fatalf("before the call: Subagents().Parent(S%d) = %+v, %v, %v; want parent S%d without a call", sub, l, ok, err, parent)
	}
	if err := os.WriteFile(parentPath, parentLines, 0o644); err != nil {
		t.Fatal(err)
	}
	mustImport(t, st, mustScan(t, Options{ClaudeDir: projects}).Sessions, ImportOptions{ClaudeHome: os.DevNull})
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
	if e.Kind != codec.KindToolCall || e.ToolUseID == "" {
		return false
	}
	switch e.ToolName {
	case "Agent", "agent", "Task", "task":
		return true
	}
	return false
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
