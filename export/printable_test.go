package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

// hostileText is what the probe stored: a window title, clear screen, an
// OSC 8 hyperlink, BEL, NUL, a CR that overwrites the line, C1 CSI and a
// right-to-left override.
const hostileText = "a\x1b]0;pwned\x07b\x1b[2J\x1b[Hc\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\d\x00e\rf\u009b31mg\u202eh"

// hostileSource puts hostileText in every string an export shows.
func hostileSource() Source {
	path := "/work/" + hostileText
	input, _ := json.Marshal(map[string]string{"command": "echo " + hostileText, "file_path": path})
	edit, _ := json.Marshal(map[string]string{"file_path": path, "old_string": hostileText + "\n", "new_string": "x" + hostileText + "\n"})
	evs := []codec.Event{
		codec.Init("/work/"+hostileText, "model"+hostileText),
		codec.Hook("hook"+hostileText, "out "+hostileText),
		codec.UserMessage("prompt " + hostileText),
		codec.AssistantText("reply " + hostileText + "\n```\n" + hostileText + "\n```"),
		codec.ToolCall("t1", "Bash"+hostileText, nil, input),
		codec.ToolResult("t1", "Bash"+hostileText, nil, "result "+hostileText, true),
		codec.ToolCall("t2", "Edit", &path, edit),
		codec.Plan("plan"+hostileText, "1. "+hostileText),
		codec.Command("/cmd" + hostileText),
		codec.ModelSwitch("m" + hostileText),
		codec.Complete(true, 1000, 0.01),
	}
	stored := make([]store.StoredEvent, len(evs))
	for i, e := range evs {
		stored[i] = store.StoredEvent{ID: int64(i + 1), Seq: int64(i + 1), Kind: e.Kind, CharLen: codec.CharLen(e), Event: e}
	}
	s := store.Session{ID: 1, Name: "name " + hostileText, Worktree: "wt" + hostileText, Created: "2026-05-01 10:00:00" + hostileText}
	comps := []store.Compaction{{ID: 1, SessionID: 1, AfterSeq: 5, Summary: "summary " + hostileText}}
	return Source{Session: s, Events: stored, Compactions: comps}
}

// TestExportEscapesControls renders a hostile session as Markdown and HTML:
// no control character but newline and tab may reach the file, and every
// one shows as its escape. The JSON export escapes them as JSON does.
func TestExportEscapesControls(t *testing.T) {
	src := hostileSource()
	for _, f := range []Format{Markdown, HTML, JSON} {
		var b bytes.Buffer
		if err := Render(&b, src, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		doc := b.String()
		if printable.Text(doc) != doc {
			t.Errorf("%s export holds a raw control character: %q", f, firstControl(doc))
		}
		switch f {
		case JSON:
			var back JSONDocument
			if err := json.Unmarshal(b.Bytes(), &back); err != nil {
				t.Fatalf("JSON export: %v", err)
			}
			if back.Session.Name != src.Session.Name || !strings.Contains(doc, `\u001b]0;pwned\u0007`) || !strings.Contains(doc, `\u202e`) {
				t.Errorf("JSON export lost the escaped text")
			}
		case Markdown:
			// A prompt is written as it is, its controls shown.
			for _, want := range []string{"prompt a" + `\x1b]0;pwned\x07b\x1b[2J`, `\x00`, `e\x0df`, `\u009b`, `\u202e`} {
				if !strings.Contains(doc, want) {
					t.Errorf("Markdown export does not show %s", want)
				}
			}
		case HTML:
			// HTML escapes text with cleanText, which drops terminal
			// sequences; what is left shows as escapes.
			for _, want := range []string{`\u009b`, `\u202e`} {
				if !strings.Contains(doc, want) {
					t.Errorf("HTML export does not show %s", want)
				}
			}
		}
	}
}

// firstControl returns the text around the first character printable
// would escape, for a readable failure.
func firstControl(doc string) string {
	for i, r := range doc {
		if s := string(r); printable.Text(s) != s {
			return doc[max(0, i-20):min(len(doc), i+20)]
		}
	}
	return ""
}
