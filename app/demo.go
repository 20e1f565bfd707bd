package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// demoSession is one sample session of the demo project.
type demoSession struct {
	name    string
	events  [][]codec.Event // one batch per turn, as an agent run stores them
	summary string          // a compaction summary stored after the first turns
}

// demoFeaturedID is the demo session the window opens on: the one with an
// Edit diff, a Write card and markdown (the second of the main worktree).
const demoFeaturedID = 2

// BuildDemo writes a demo project with two worktrees into dir and returns
// them. The sessions are embedded in the binary, so a fresh checkout shows a
// rich example without any agent history.
func BuildDemo(ctx context.Context, dir string) ([]Worktree, error) {
	sets := []struct {
		branch   string
		sessions []demoSession
	}{
		{"main", []demoSession{demoLongSession(), demoParserFix(), demoFailedRun()}},
		{"feature/diff-view", []demoSession{demoCodexPatch(), demoQuestion()}},
	}
	var wts []Worktree
	for i, set := range sets {
		wdir := filepath.Join(dir, fmt.Sprintf("worktree-%d", i+1))
		if err := os.MkdirAll(wdir, 0o755); err != nil {
			return nil, err
		}
		wt := Worktree{Dir: wdir, Branch: set.branch, StorePath: filepath.Join(wdir, StoreRelPath)}
		if err := writeDemoStore(ctx, wt, set.sessions); err != nil {
			return nil, fmt.Errorf("build demo %s: %w", set.branch, err)
		}
		wts = append(wts, wt)
	}
	return wts, nil
}

func writeDemoStore(ctx context.Context, wt Worktree, sessions []demoSession) error {
	st, err := store.Open(ctx, wt.StorePath)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, ds := range sessions {
		s, _, err := st.Sessions().CreateWithEvents(ctx, wt.Branch, ds.name, ds.events[0])
		if err != nil {
			return err
		}
		for i, batch := range ds.events[1:] {
			if ds.summary != "" && i == 1 {
				last, err := st.Events().All(ctx, s.ID)
				if err != nil {
					return err
				}
				if _, err := st.Compactions().Add(ctx, s.ID, last[len(last)-1].Seq, ds.summary); err != nil {
					return err
				}
			}
			if _, err := st.Events().Append(ctx, s.ID, batch); err != nil {
				return err
			}
		}
	}
	return nil
}

func input(v any) json.RawMessage {
	b, _ := json.Marshal(v) // the demo literals always marshal
	return b
}

func claudeInit(cwd string) codec.Event { return codec.Init(cwd, "claude-opus-4-5") }

func demoParserFix() demoSession {
	old := "func parseLine(b []byte) (Event, error) {\n\tvar e Event\n\tif err := json.Unmarshal(b, &e); err != nil {\n\t\treturn Event{}, err\n\t}\n\treturn e, nil\n}"
	updated := "func parseLine(b []byte) (Event, error) {\n\tb = bytes.TrimSpace(b)\n\tif len(b) == 0 {\n\t\treturn Event{}, errBlankLine\n\t}\n\tvar e Event\n\tif err := json.Unmarshal(b, &e); err != nil {\n\t\treturn Event{}, fmt.Errorf(\"parse line: %w\", err)\n\t}\n\treturn e, nil\n}"
	return demoSession{name: "Fix blank lines in the log parser", events: [][]codec.Event{{
		claudeInit("/home/ada/src/logtail"),
		codec.UserMessage("The log parser crashes on blank lines at the end of a file. Can you make it skip them and wrap the JSON error with context?"),
		codec.AssistantText("I'll look at the parser first."),
		codec.ToolCall("toolu_01", "Read", new("/home/ada/src/logtail/parse.go"), input(map[string]any{"file_path": "/home/ada/src/logtail/parse.go"})),
		codec.ToolResult("toolu_01", "Read", new("/home/ada/src/logtail/parse.go"), "package logtail\n\nimport \"encoding/json\"\n\n"+old+"\n", false),
		codec.ToolCall("toolu_02", "Edit", new("/home/ada/src/logtail/parse.go"), input(map[string]any{
			"file_path": "/home/ada/src/logtail/parse.go", "old_string": old, "new_string": updated})),
		codec.ToolResult("toolu_02", "Edit", new("/home/ada/src/logtail/parse.go"), "The file /home/ada/src/logtail/parse.go has been updated.", false),
		codec.ToolCall("toolu_03", "Write", new("/home/ada/src/logtail/parse_test.go"), input(map[string]any{
			"file_path": "/home/ada/src/logtail/parse_test.go",
			"content":   "// Tests for blank and malformed lines.\npackage logtail\n\nimport \"testing\"\n\nfunc TestBlankLine(t *testing.T) {\n\tif _, err := parseLine([]byte(\"  \")); err != errBlankLine {\n\t\tt.Fatalf(\"err = %v\", err)\n\t}\n}\n"})),
		codec.ToolResult("toolu_03", "Write", new("/home/ada/src/logtail/parse_test.go"), "File created successfully at: /home/ada/src/logtail/parse_test.go", false),
		codec.ToolCall("toolu_04", "Bash", nil, input(map[string]any{"command": "go test ./...", "description": "Run the tests"})),
		codec.ToolResult("toolu_04", "Bash", nil, "=== RUN   TestBlankLine\n--- PASS: TestBlankLine (0.00s)\nPASS\nok  \tlogtail\t0.004s", false),
		codec.AssistantText("Fixed. `parseLine` now:\n\n1. trims the line and returns `errBlankLine` for empty input, which the reader loop skips;\n2. wraps JSON errors as `parse line: …` so the caller sees where it failed.\n\n```go\nb = bytes.TrimSpace(b)\nif len(b) == 0 {\n\treturn Event{}, errBlankLine\n}\n```\n\nI added `TestBlankLine`; `go test ./...` passes."),
		codec.Complete(true, 48_200, 0.1832),
	}}}
}

func demoFailedRun() demoSession {
	return demoSession{name: "", events: [][]codec.Event{{
		codec.Init("/home/ada/src/logtail", "gpt-5.5"),
		codec.UserMessage("Bump the Go version in CI to 1.26 and run the release build."),
		codec.ToolCall("call_1", "Bash", nil, input(map[string]any{"command": "make release"})),
		codec.ToolResult("call_1", "Bash", nil, "go: go.mod requires go >= 1.26 (running go 1.24.3)\nmake: *** [Makefile:12: release] Error 1", true),
		codec.AssistantText("Error: the release build failed because the runner still has Go 1.24. The workflow pins `setup-go` to 1.24; it needs `go-version: '1.26'` first."),
		codec.Complete(false, 12_400, 0.0412),
	}}}
}

func demoCodexPatch() demoSession {
	patch := "*** Begin Patch\n*** Update File: views/diff.go\n@@ func render(lines []Line) string {\n-\tfor _, l := range lines {\n-\t\tout += l.Text + \"\\n\"\n-\t}\n+\tvar b strings.Builder\n+\tfor _, l := range lines {\n+\t\tb.WriteString(l.Text)\n+\t\tb.WriteByte('\\n')\n+\t}\n+\treturn b.String()\n*** End Patch\n"
	return demoSession{name: "Speed up diff rendering", events: [][]codec.Event{{
		codec.Init("/home/ada/src/logtail-diff", "gpt-5.5"),
		codec.UserMessage("Rendering a 5,000-line diff takes seconds. Profile it and fix the hot spot."),
		codec.AssistantText("**Profiling the renderer**\n\nThe profile shows `render` spends 92% of its time in string concatenation: every `+=` copies the whole output."),
		codec.ToolCall("call_a", "Bash", nil, input(map[string]any{"command": "go test -run '^$' -bench Render -cpuprofile cpu.out ./views"})),
		codec.ToolResult("call_a", "Bash", nil, "BenchmarkRender-2   \t       3\t 1843211203 ns/op\nok  \tviews\t7.9s", false),
		codec.ToolCall("call_b", "Edit", new("views/diff.go"), input(map[string]any{"patch": patch})),
		codec.ToolResult("call_b", "Edit", new("views/diff.go"), "Success. Updated the following files:\nM views/diff.go", false),
		codec.ToolCall("call_c", "Bash", nil, input(map[string]any{"command": "go test -run '^$' -bench Render ./views"})),
		codec.ToolResult("call_c", "Bash", nil, "BenchmarkRender-2   \t    1203\t    973412 ns/op\nok  \tviews\t2.1s", false),
		codec.AssistantText("`render` now uses a `strings.Builder`: from **1.84 s to 0.97 ms** per 5,000-line diff (about 1,900× faster)."),
		codec.Complete(true, 95_000, 0.2104),
	}}}
}

func demoQuestion() demoSession {
	return demoSession{name: "How does compaction work?", events: [][]codec.Event{{
		codec.Init("/home/ada/src/logtail-diff", "claude-sonnet-4-5"),
		codec.UserMessage("How does session compaction decide what to keep?"),
		codec.AssistantText("When the characters stored since the last compaction reach **400,000**, a summary replaces the older history:\n\n- the last three user prompts and everything after them stay verbatim;\n- the rest is summarised in 2,000–4,000 characters (decisions, files touched, current state, next steps);\n- nothing is deleted: the summary is a new row with `after_seq`, and every event stays in the store."),
	}}}
}

func demoLongSession() demoSession {
	var turns [][]codec.Event
	topics := []string{"the store schema", "the event codec", "ingestion-time compaction", "context injection", "the session sidebar", "the diff card"}
	for i, topic := range topics {
		path := fmt.Sprintf("/home/ada/src/lazuli/notes/%02d.md", i+1)
		body := strings.Repeat(fmt.Sprintf("Notes on %s: decisions, trade-offs and the tests that pin them down.\n", topic), 40)
		turn := []codec.Event{
			codec.UserMessage(fmt.Sprintf("Write up what we decided about %s.", topic)),
			codec.ToolCall(fmt.Sprintf("toolu_w%d", i), "Write", new(path), input(map[string]any{"file_path": path, "content": "# " + topic + "\n" + body})),
			codec.ToolResult(fmt.Sprintf("toolu_w%d", i), "Write", new(path), "File created successfully at: "+path, false),
			codec.AssistantText(fmt.Sprintf("Written to `%s`.\n\n%s", path, body)),
			codec.Complete(true, uint64(20_000+i*3_000), 0.05+float64(i)/100),
		}
		if i == 0 {
			turn = append([]codec.Event{claudeInit("/home/ada/src/lazuli")}, turn...)
		}
		turns = append(turns, turn)
	}
	return demoSession{
		name:   "Design notes (compacted)",
		events: turns,
		summary: "The user and the assistant wrote design notes for Lazuli, one file per topic under notes/. " +
			"They decided to keep AZUREAL's v3 schema unchanged, to compute seq inside BEGIN IMMEDIATE, and to apply " +
			"ingestion-time compaction exactly as AZUREAL does. Files created: notes/01.md (store schema). " +
			"Current state: the notes on the codec were next.",
	}
}
