package export

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// thinkingSource is a session whose thinking (store.ThinkingTable) holds a
// secret, loaded from a real store the way every export loads it.
func thinkingSource(t *testing.T) Source {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, _, err := st.Sessions().CreateWithEvents(ctx, "main", "think", []codec.Event{
		codec.UserMessage("plan the fix"),
		store.Thinking("First <check> the parser, the key is " + awsKeyID),
		codec.AssistantText("The parser is fine."),
	})
	if err != nil {
		t.Fatal(err)
	}
	src, err := Load(ctx, st, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestThinkingInExports: the agent's thinking is in every export, folded in
// Markdown and HTML, as a member of its event in JSON, and goes through the
// secret scan like any other text.
func TestThinkingInExports(t *testing.T) {
	src := thinkingSource(t)
	md := render(t, src, Markdown)
	if !strings.Contains(md, "<details><summary>Thinking</summary>") || !strings.Contains(md, "First <check> the parser") {
		t.Errorf("Markdown has no folded thinking:\n%s", md)
	}
	if i, j := strings.Index(md, "First <check>"), strings.Index(md, "The parser is fine."); i < 0 || i > j {
		t.Errorf("thinking is not before the answer it preceded:\n%s", md)
	}
	doc := render(t, src, HTML)
	checkHTML(t, doc)
	if !strings.Contains(doc, `<details class="thinking"><summary>Thinking`) || !strings.Contains(doc, "First &lt;check&gt; the parser") {
		t.Errorf("HTML has no folded thinking:\n%s", doc)
	}
	js := render(t, src, JSON)
	got := decodeJSONExport(t, js, src)
	found := false
	for _, e := range got.Events {
		if len(e.Thinking) == 1 && strings.HasPrefix(e.Thinking[0], "First <check> the parser") {
			found = e.Kind == codec.KindAssistantText
		}
	}
	if !found {
		t.Errorf("JSON has no thinking on the answer's event:\n%s", js)
	}

	rep := Scan(src)
	where := ""
	for _, f := range rep.Findings {
		if f.Rule == "aws-access-key-id" {
			for _, l := range f.Locations {
				where += l.String()
			}
		}
	}
	if where != "#2 · thinking" {
		t.Errorf("secret in thinking found at %q, want #2 · thinking", where)
	}
	red := Redact(src, rep)
	for _, f := range Formats {
		if out := render(t, red, f); strings.Contains(out, awsKeyID) {
			t.Errorf("redacted %s export still holds the secret of the thinking", f)
		}
	}
	if strings.Contains(src.Events[1].Thinking[0], "REDACTED") {
		t.Error("Redact changed the source's thinking in place")
	}
}
