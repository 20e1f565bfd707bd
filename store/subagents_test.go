package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestSubagentLinkFollowsItsSessions deletes a sub-agent session and a
// parent: their links go with them, and a new session that gets a deleted
// one's id is not taken for it.
func TestSubagentLinkFollowsItsSessions(t *testing.T) {
	ctx := context.Background()
	st := mustOpen(t)
	name := func(parent string) string { return parent + " › sub" }
	parent, n, err := st.Sessions().CreateWithSubagents(ctx, "main", "", []codec.Event{codec.UserMessage("go")},
		[]SubagentBatch{{ToolUseID: "toolu_1", Name: name, Events: []codec.Event{codec.UserMessage("a")}},
			{ToolUseID: "toolu_2", Name: name, Events: []codec.Event{codec.UserMessage("b"), codec.AssistantText("done")}}})
	if err != nil || n != 4 {
		t.Fatalf("stored %d: %v", n, err)
	}
	rep, err := st.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity != SeverityInfo {
			t.Errorf("check of a store with sub-agent links: %s %s: %s", f.Severity, f.Code, f.Message)
		}
	}
	links, err := st.Subagents().Of(ctx, parent)
	if err != nil || len(links) != 2 || links[0].ToolUseID != "toolu_1" {
		t.Fatalf("links %+v, %v", links, err)
	}
	if s, _ := st.Sessions().Get(ctx, links[0].SessionID); s.Name != DisplayName(parent, "")+" › sub" {
		t.Fatalf("sub-agent name %q", s.Name)
	}
	if l, ok, err := st.Subagents().Parent(ctx, links[1].SessionID); err != nil || !ok || l.ParentID != parent || l.ToolUseID != "toolu_2" {
		t.Fatalf("parent link %+v %v %v", l, ok, err)
	}
	if err := st.Sessions().Delete(ctx, links[0].SessionID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Subagents().Session(ctx, parent, "toolu_1"); ok {
		t.Fatal("the link of a deleted sub-agent session remains")
	}
	if err := st.Sessions().Delete(ctx, parent); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Subagents().Parent(ctx, links[1].SessionID); ok {
		t.Fatal("a sub-agent still links to a deleted parent")
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check: %+v %v", rep, err)
	}
}

// TestSubagentLinkNotInheritedByReusedID: AZUREAL deletes a sub-agent
// session or its parent with foreign keys off, leaving the link row, and
// gives the id to a new session (azurealDeletes); the new session inherits
// no link, from either side, while the other links stay.
func TestSubagentLinkNotInheritedByReusedID(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		reused func(parent int64, subs []SubagentLink) int64 // the id deleted and reused
		live   map[string]bool                               // by call: whether its link is still read
	}{
		{"sub-agent", func(_ int64, subs []SubagentLink) int64 { return subs[0].SessionID },
			map[string]bool{"toolu_1": false, "toolu_2": true}},
		{"parent", func(parent int64, _ []SubagentLink) int64 { return parent },
			map[string]bool{"toolu_1": false, "toolu_2": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := mustOpen(t)
			other := mustCreateSession(t, st, "main", "other")
			name := func(parent string) string { return parent + " › sub" }
			parent, _, err := st.Sessions().CreateWithSubagents(ctx, "main", "", []codec.Event{codec.UserMessage("go")},
				[]SubagentBatch{{ToolUseID: "toolu_1", Name: name, Events: []codec.Event{codec.UserMessage("a")}},
					{ToolUseID: "toolu_2", Name: name, Events: []codec.Event{codec.UserMessage("b")}}})
			if err != nil {
				t.Fatal(err)
			}
			subs, err := st.Subagents().Of(ctx, parent)
			if err != nil || len(subs) != 2 {
				t.Fatalf("Subagents().Of(%d) = %+v, %v", parent, subs, err)
			}
			reused := tc.reused(parent, subs)
			path := st.Path()
			st.Close()
			azurealDeletes(t, path, other.ID, reused)
			if got := rawQueryString(t, path, "SELECT COUNT(*) FROM lazuli_subagents"); got != "2" {
				t.Fatalf("link rows left %s, want 2: the test shows nothing", got)
			}
			st = mustOpenPath(t, path)
			live := tc.live
			var wantOf []int64
			for _, l := range subs {
				if live[l.ToolUseID] {
					wantOf = append(wantOf, l.SessionID)
				}
			}
			of, err := st.Subagents().Of(ctx, parent)
			var gotOf []int64
			for _, l := range of {
				gotOf = append(gotOf, l.SessionID)
			}
			if err != nil || fmt.Sprint(gotOf) != fmt.Sprint(wantOf) {
				t.Errorf("Subagents().Of(%d) = %v, %v; want %v", parent, gotOf, err, wantOf)
			}
			for _, l := range subs {
				if _, ok, err := st.Subagents().Session(ctx, parent, l.ToolUseID); err != nil || ok != live[l.ToolUseID] {
					t.Errorf("Subagents().Session(%d, %q) = %v, %v; want %v", parent, l.ToolUseID, ok, err, live[l.ToolUseID])
				}
				if _, ok, err := st.Subagents().Parent(ctx, l.SessionID); err != nil || ok != live[l.ToolUseID] {
					t.Errorf("Subagents().Parent(%d) = %v, %v; want %v", l.SessionID, ok, err, live[l.ToolUseID])
				}
			}
			if rep, err := st.Check(ctx); err != nil || !rep.OK() || !hasFinding(rep, "subagents_stale", SeverityWarning) {
				t.Errorf("Check() = %+v, %v", rep.Findings, err)
			}
		})
	}
}

// TestSubagentReadsNeverCreateTheTable reads links of a store without the
// table: nothing is found and nothing is written.
func TestSubagentReadsNeverCreateTheTable(t *testing.T) {
	ctx := context.Background()
	st := mustOpen(t)
	s, err := st.Sessions().Create(ctx, "main", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.Subagents().Parent(ctx, s.ID); ok || err != nil {
		t.Fatalf("Subagents().Parent = %v, %v", ok, err)
	}
	if _, err := st.Events().Append(ctx, s.ID, []codec.Event{codec.UserMessage("x")}); err != nil {
		t.Fatal(err)
	}
	db, _, err := st.reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := hasTable(ctx, db, SubagentTable); ok {
		t.Fatal("the link table was created without a sub-agent")
	}
}

// TestNativeSubagentLinks: the sub-agents an import of native history
// stored are listed by Unlinked until Link links them; a link without its
// call is listed again only for the parents asked to retry, and gets the
// call from a later Link; a live link to a known call is never replaced.
func TestNativeSubagentLinks(t *testing.T) {
	ctx := context.Background()
	st := mustOpen(t)
	sub := func(id string) NativeBatch {
		b := nativeBatch("p/"+id, codec.UserMessage("look"))
		b.ParentID = "p"
		return b
	}
	if got, err := st.Subagents().Unlinked(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Unlinked() of a store without imports = %+v, %v", got, err)
	}
	orphan := sub("agent-orphan")
	orphan.ParentID = "gone" // its parent is not imported: it is no sub-agent here
	res := mustImportNative(t, st, sub("agent-a"), sub("agent-b"), nativeBatch("p", codec.UserMessage("go")), orphan)
	a, b, parent := res[0].SessionID, res[1].SessionID, res[2].SessionID
	ids := func(subs []NativeSubagent) []int64 {
		var out []int64
		for _, s := range subs {
			out = append(out, s.SessionID)
			if s.ParentID != parent || s.ParentNativeID != "p" || s.Agent != "claude" || s.ParentPath != "/h/.claude/projects/p/p.jsonl" {
				t.Errorf("Unlinked() row %+v", s)
			}
		}
		return out
	}
	if got, err := st.Subagents().Unlinked(ctx); err != nil || fmt.Sprint(ids(got)) != fmt.Sprint([]int64{a, b}) {
		t.Fatalf("Unlinked() = %v, %v; want [%d %d]", ids(got), err, a, b)
	}
	if n, err := st.Subagents().Link(ctx, []SubagentLink{{SessionID: a, ParentID: parent, ToolUseID: "toolu_a"}, {SessionID: b, ParentID: parent}}); err != nil || n != 2 {
		t.Fatalf("Link() = %d, %v; want 2", n, err)
	}
	if got, ok, err := st.Subagents().Session(ctx, parent, "toolu_a"); err != nil || !ok || got != a {
		t.Errorf("Session(toolu_a) = %d, %v, %v; want %d", got, ok, err, a)
	}
	if l, ok, err := st.Subagents().Parent(ctx, b); err != nil || !ok || l.ParentID != parent || l.ToolUseID != "" {
		t.Errorf("Parent(%d) = %+v, %v, %v; want parent %d without a call", b, l, ok, err, parent)
	}
	if got, err := st.Subagents().Unlinked(ctx); err != nil || len(got) != 0 {
		t.Errorf("Unlinked() after Link = %v, %v; want none", ids(got), err)
	}
	if got, err := st.Subagents().Unlinked(ctx, parent); err != nil || fmt.Sprint(ids(got)) != fmt.Sprint([]int64{b}) {
		t.Errorf("Unlinked(retry %d) = %v, %v; want [%d]", parent, ids(got), err, b)
	}
	// Linking again without a call, or to another call, changes nothing;
	// the call of the one linked without it is taken.
	if n, err := st.Subagents().Link(ctx, []SubagentLink{{SessionID: a, ParentID: parent, ToolUseID: "toolu_other"}, {SessionID: b, ParentID: parent}}); err != nil || n != 0 {
		t.Errorf("Link() over live links = %d, %v; want 0", n, err)
	}
	if n, err := st.Subagents().Link(ctx, []SubagentLink{{SessionID: b, ParentID: parent, ToolUseID: "toolu_b"}}); err != nil || n != 1 {
		t.Errorf("Link() with the call = %d, %v; want 1", n, err)
	}
	for id, call := range map[int64]string{a: "toolu_a", b: "toolu_b"} {
		if l, ok, err := st.Subagents().Parent(ctx, id); err != nil || !ok || l.ToolUseID != call {
			t.Errorf("Parent(%d) = %+v, %v, %v; want call %q", id, l, ok, err, call)
		}
	}
	if n, err := st.Subagents().Link(ctx, []SubagentLink{{SessionID: 999, ParentID: parent}}); err != nil || n != 0 {
		t.Errorf("Link() of a missing session = %d, %v; want 0", n, err)
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("Check() = %+v, %v", rep, err)
	}
}
