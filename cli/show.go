package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

// eventJSON is one element of `lazuli show --json`.
type eventJSON struct {
	Seq     int64           `json:"seq"`
	Kind    codec.Kind      `json:"kind"`
	CharLen int64           `json:"char_len"`
	Event   json.RawMessage `json:"event"`
	// Thinking is the agent's thinking that came before the event (kept
	// beside the events, never in the context).
	Thinking []string `json:"thinking,omitempty"`
	// RunFailures are why the runs that ended with the event failed (kept
	// beside the events, never in the context).
	RunFailures []string `json:"run_failures,omitempty"`
}

func runShow(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("show", env)
	storeArg := fs.String("store", "", "store file or folder")
	asJSON := fs.Bool("json", false, "print JSON")
	st, sess, err := parseSession(ctx, env, fs, storeArg, args, false)
	if err != nil {
		return err
	}
	defer st.Close()
	defer reportUnreadable(env, st) // before Close: runs first
	id := sess.ID
	events, err := st.Events().All(ctx, id)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeEventsJSON(env.Stdout, events)
	}
	printTranscript(env.Stdout, sess, events)
	return nil
}

// writeEventsJSON prints events as `show --json` does.
func writeEventsJSON(w io.Writer, events []store.StoredEvent) error {
	out := make([]eventJSON, 0, len(events))
	for _, e := range events {
		js, err := codec.EncodeEventJSON(e.Event)
		if err != nil {
			return fmt.Errorf("encode event %d: %w", e.Seq, err)
		}
		out = append(out, eventJSON{Seq: e.Seq, Kind: e.Kind, CharLen: e.CharLen, Event: js, Thinking: e.Thinking,
			RunFailures: e.RunFailures})
	}
	return writeJSON(w, out)
}

// printTranscript writes a readable transcript of a session, its control
// characters shown as escapes (package printable).
func printTranscript(w io.Writer, s store.Session, events []store.StoredEvent) {
	fmt.Fprintf(w, "S%d  %s  [%s]  %s  %s  %d msgs  context %s\n\n", s.ID, printable.Line(s.DisplayName()),
		printable.Line(s.Worktree), printable.Line(s.Created), statusText(s), s.MessageCount, meterText(s.CharsSinceCompaction))
	for _, se := range events {
		for _, t := range se.Thinking {
			fmt.Fprintf(w, "#%d Thinking\n%s\n\n", se.Seq, indent(printable.Text(t)))
		}
		head, body := describeEvent(se.Event)
		fmt.Fprintf(w, "#%d %s\n", se.Seq, printable.Line(head))
		if body != "" {
			fmt.Fprintln(w, indent(printable.Text(body)))
		}
		fmt.Fprintln(w)
		for _, f := range se.RunFailures {
			fmt.Fprintf(w, "#%d Run failed\n%s\n\n", se.Seq, indent(printable.Text(f)))
		}
	}
}

// describeEvent returns a one-line heading and an optional body for e.
func describeEvent(e codec.Event) (string, string) {
	switch e.Kind {
	case codec.KindInit:
		return fmt.Sprintf("Init  model %s  cwd %s", e.Model, e.CWD), ""
	case codec.KindUserMessage:
		if !e.IsPrompt() {
			return e.Notice(), ""
		}
		return "User", e.Content
	case codec.KindAssistantText:
		return "Assistant", e.Text
	case codec.KindToolCall:
		head := "Tool: " + e.ToolName
		if p := codec.ToolKeyParam(e.ToolName, e.Input); p != "" {
			head += " (" + p + ")"
		}
		return head, ""
	case codec.KindToolResult:
		label := "Result"
		if e.IsError {
			label = "Error"
		}
		return label + ": " + e.ToolName, e.Content
	case codec.KindComplete:
		mark := "✓ completed"
		if !e.Success {
			mark = "✗ failed"
		}
		return fmt.Sprintf("%s  %.1fs  $%.4f", mark, float64(e.DurationMS)/1000, e.CostUSD), ""
	case codec.KindHook:
		return "Hook: " + e.Name, e.Output
	case codec.KindCommand:
		return "Command: " + e.Name, ""
	case codec.KindPlan:
		return "Plan: " + e.Name, e.Content
	case codec.KindModelSwitch:
		return "Model: " + e.Model, ""
	}
	return string(e.Kind), ""
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
