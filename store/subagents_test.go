package store

import (
	"context"
	"testing"
)

// TestSubagentLinkFollowsItsSessions deletes a sub-agent session and a
// parent: their links go with them, and a new session that gets a deleted
// one's id is not taken for it.
func TestSubagentLinkFollowsItsSessions(t *testing.T) {
	ctx := context.Background()
	st := mustOpen(t)
	name := func(parent string) string { return parent + " › sub" }
	parent, n, err := st.CreateSessionWithSubagents(ctx, "main", "", []Event{UserMessage("go")},
		[]SubagentBatch{{ToolUseID: "toolu_1", Name: name, Events: []Event{UserMessage("a")}},
			{ToolUseID: "toolu_2", Name: name, Events: []Event{UserMessage("b"), AssistantText("done")}}})
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
	if s, _ := st.GetSession(ctx, links[0].SessionID); s.Name != DisplayName(parent, "")+" › sub" {
		t.Fatalf("sub-agent name %q", s.Name)
	}
	if l, ok, err := st.Subagents().Parent(ctx, links[1].SessionID); err != nil || !ok || l.ParentID != parent || l.ToolUseID != "toolu_2" {
		t.Fatalf("parent link %+v %v %v", l, ok, err)
	}
	if err := st.DeleteSession(ctx, links[0].SessionID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Subagents().Session(ctx, parent, "toolu_1"); ok {
		t.Fatal("the link of a deleted sub-agent session remains")
	}
	if err := st.DeleteSession(ctx, parent); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Subagents().Parent(ctx, links[1].SessionID); ok {
		t.Fatal("a sub-agent still links to a deleted parent")
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check: %+v %v", rep, err)
	}
}

// TestSubagentReadsNeverCreateTheTable reads links of a store without the
// table: nothing is found and nothing is written.
func TestSubagentReadsNeverCreateTheTable(t *testing.T) {
	ctx := context.Background()
	st := mustOpen(t)
	s, err := st.CreateSession(ctx, "main", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.Subagents().Parent(ctx, s.ID); ok || err != nil {
		t.Fatalf("Subagents().Parent = %v, %v", ok, err)
	}
	if _, err := st.AppendEvents(ctx, s.ID, []Event{UserMessage("x")}); err != nil {
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
