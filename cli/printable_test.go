package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

// hostile is what the probe stored: set the window title, clear the
// screen, an OSC 8 hyperlink, BEL, NUL, a CR that overwrites the line, C1
// CSI and a right-to-left override.
const hostile = "zq\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\x00over\rwrite\u009b31m\u202eevil"

// hostileStore writes a session whose name, worktree and every event carry
// hostile text, and returns the folder of its worktree.
func hostileStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	input, _ := json.Marshal(map[string]string{"command": "echo " + hostile})
	events := []codec.Event{
		codec.Init("/work/"+hostile, "model"+hostile),
		codec.UserMessage("prompt " + hostile + "\nline two"),
		codec.AssistantText("reply " + hostile),
		codec.ToolCall("t1", "Bash"+hostile, nil, input),
		codec.ToolResult("t1", "Bash"+hostile, nil, "result "+hostile, true),
		codec.Hook("hook"+hostile, "out "+hostile),
		codec.Plan("plan"+hostile, hostile),
		codec.Complete(true, 1000, 0.01),
	}
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "wt"+hostile, "name"+hostile, events); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHostileTextIsEscaped runs every command that prints stored text on a
// hostile store: no control character but newline and tab reaches the
// output, and the escapes show what was there.
func TestHostileTextIsEscaped(t *testing.T) {
	dir := hostileStore(t)
	for _, args := range [][]string{
		{"ls"}, {"ls", "--json"}, {"show", "S1"}, {"show", "S1", "--json"},
		{"search", "zq"}, {"search", "--json", "zq"}, {"export", "S1", "-o", "-", "--format", "md"},
		{"export", "S1", "-o", "-", "--format", "html"}, {"export", "S1", "-o", "-", "--format", "json"},
	} {
		code, out, errOut := run(t, dir, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		for name, s := range map[string]string{"stdout": out, "stderr": errOut} {
			if printable.Text(s) != s {
				t.Errorf("%v: %s holds a raw control character:\n%q", args, name, s)
			}
		}
		if strings.Contains(args[len(args)-1], "json") || args[0] == "dump" || strings.Contains(strings.Join(args, " "), "--json") {
			continue
		}
		if !strings.Contains(out, `\u202eevil`) {
			t.Errorf("%v: the override is not shown as \\u202e:\n%s", args, out)
		}
	}
	_, out, _ := run(t, dir, "show", "S1")
	for _, want := range []string{`namezq\x1b]0;pwned\x07\x1b[2J\x1b[H`, `\x00over\x0dwrite\u009b31m`, "    prompt zq", "\n    line two\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("show does not print %q:\n%s", want, out)
		}
	}
}

// TestErrorsAreEscaped: an error that quotes a hostile name (a folder
// named with escape sequences) reaches stderr escaped too.
func TestErrorsAreEscaped(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"show", "--store", "gone" + hostile, "S1"}, {"show", "S1" + hostile}} {
		code, _, errOut := run(t, dir, args...)
		if code == 0 || printable.Text(errOut) != errOut || !strings.Contains(errOut, `\x1b]0;pwned`) {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestContextPipedIsExact checks that `context` and `dump` to a pipe stay
// exact (what an agent gets; AZUREAL's dump); only a terminal sees escapes.
func TestContextPipedIsExact(t *testing.T) {
	dir := hostileStore(t)
	code, out, errOut := run(t, dir, "context", "S1", "next")
	if code != 0 {
		t.Fatalf("context: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "prompt "+hostile) {
		t.Errorf("piped context is not the exact prompt:\n%q", out)
	}
	// dump, AZUREAL's format byte for byte: JSON escapes C0 controls, the
	// others stay as they are.
	code, out, errOut = run(t, dir, "dump")
	if code != 0 || !strings.Contains(out, `zq\u001b]0;pwned\u0007`) || !strings.Contains(out, "\u009b31m\u202eevil") {
		t.Errorf("piped dump: exit %d, %s\n%q", code, errOut, out)
	}
}
