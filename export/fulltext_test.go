package export

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestExportFullText: Load brings the full text the store kept beside a
// shortened tool result; Markdown and HTML offer it behind a fold, JSON in
// a "full" field; the secret scan finds a secret that only the full text
// holds, and Redact removes it there too.
func TestExportFullText(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secret := "ghp_" + "R8kq2ZtW9xLmB4vN7cYpQ1sD6fH3jG5aE0uT"
	lines := []string{"building", "fullOnlyMarker", "export GITHUB_TOKEN=" + secret, "step three", "step four", "done"}
	sess, _, err := st.Sessions().CreateWithEvents(ctx, "main", "s", []codec.Event{
		codec.UserMessage("run it"),
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"make"}`)),
		codec.ToolResult("t1", "Bash", nil, strings.Join(lines, "\n"), false),
	})
	if err != nil {
		t.Fatal(err)
	}
	src, err := Load(ctx, st, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(src.Full[3], "fullOnlyMarker") || strings.Contains(src.Events[2].Event.Content, "fullOnlyMarker") {
		t.Fatalf("Load: full %q, event %q", src.Full[3], src.Events[2].Event.Content)
	}
	render := func(src Source, f Format) string {
		var b bytes.Buffer
		if err := Render(&b, src, f); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if md := render(src, Markdown); !strings.Contains(md, "<details><summary>Full output (6 lines)</summary>") || !strings.Contains(md, "fullOnlyMarker") {
		t.Errorf("Markdown lacks the folded full output:\n%s", md)
	}
	if h := render(src, HTML); !strings.Contains(h, `<details class="full">`) || !strings.Contains(h, "fullOnlyMarker") {
		t.Errorf("HTML lacks the folded full output")
	}
	var doc JSONDocument
	if err := json.Unmarshal([]byte(render(src, JSON)), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Events) != 3 || !strings.Contains(doc.Events[2].Full, "fullOnlyMarker") || doc.Events[1].Full != "" {
		t.Errorf("JSON events: %+v", doc.Events)
	}
	rep := Scan(src)
	if rep.Occurrences() != 1 || rep.Findings[0].Locations[0].Field != "full output" {
		t.Fatalf("scan: %+v", rep.Findings)
	}
	red := Redact(src, rep)
	for _, f := range Formats {
		if out := render(red, f); strings.Contains(out, secret) || !strings.Contains(out, "fullOnlyMarker") {
			t.Errorf("%s after Redact still holds the secret, or lost the rest", f)
		}
	}
	if !strings.Contains(src.Full[3], secret) {
		t.Error("Redact changed the source")
	}
}
