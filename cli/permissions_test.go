package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/permprompt"
	"github.com/lazuli-app/lazuli/store"
)

// cliArgsEnv makes the test binary run the lazuli command whose
// arguments it holds, one a line (see TestMain).
const cliArgsEnv = "LAZULI_CLI_TEST_ARGS"

// permStore returns a folder with a store of two sessions, and Lazuli's
// configuration folder pointed at a temporary one.
func permStore(t *testing.T) string {
	t.Helper()
	t.Setenv("LAZULI_CONFIG_DIR", t.TempDir())
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, name := range []string{"a", "b"} {
		if _, err := st.Sessions().Create(context.Background(), "main", name); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPermissionsCommand: `lazuli permissions` sets a session's mode,
// adds and removes rules (by spelling or number), sets the project's
// defaults, and shows what a run follows, with --json; what codex cannot
// express is listed.
func TestPermissionsCommand(t *testing.T) {
	dir := permStore(t)
	must := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(t, dir, append([]string{"permissions"}, args...)...)
		if code != 0 {
			t.Fatalf("permissions %q: exit %d: %s", args, code, errOut)
		}
		return out
	}
	must("--project", "mode", "plan")
	must("--project", "add", "deny", "Bash(rm *)")
	must("S1", "mode", "ask")
	must("S1", "add", "allow", "Bash(git *)")
	must("S1", "add", "deny", "Edit(src/**)")
	must("S1", "add", "allow", "Bash(git *)") // again: no duplicate
	out := must("S1")
	for _, want := range []string{"S1 mode: Ask (this session's)", "1.  allow Bash(git *)  (session)", "2.  deny  Edit(src/**)  (session)",
		"deny  Bash(rm *)  (project)", "codex: mode Ask", "gemini: mode Ask", "qwen: mode Ask"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	must("S1", "rm", "1")
	must("S1", "rm", "deny", "Edit(src/**)")
	var got permissionsJSON
	if err := json.Unmarshal([]byte(must("S1", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Session != 1 || got.Mode != "ask" || len(got.Rules) != 0 || got.EffectiveMode != "ask" || len(got.EffectiveRules) != 1 ||
		got.EffectiveRules[0].Rule != "Bash(rm *)" || got.EffectiveRules[0].Source != "project" || got.Project == nil || got.Project.Mode != "plan" {
		t.Errorf("--json = %+v", got)
	}
	// Every backend's CLI lists what it cannot apply; codex's also under
	// its old name.
	rule, err := agents.ParseRule("deny", "Bash(rm *)")
	if err != nil {
		t.Fatal(err)
	}
	eff := agents.Policy{Mode: agents.ModeAsk, Rules: []store.PermissionRule{rule}}
	for _, b := range agents.Backends() {
		want := append([]string{}, b.Unexpressed(eff)...)
		if g, ok := got.Unexpressed[string(b)]; !ok || strings.Join(g, "\n") != strings.Join(want, "\n") {
			t.Errorf("--json unexpressed[%s] = %q (listed %v), want %q", b, g, ok, want)
		}
	}
	if len(got.Unexpressed["gemini"]) == 0 || strings.Join(got.CodexUnexpressed, "\n") != strings.Join(got.Unexpressed["codex"], "\n") {
		t.Errorf("--json unexpressed %q, codex_unexpressed %q", got.Unexpressed, got.CodexUnexpressed)
	}
	if err := json.Unmarshal([]byte(must("S2", "--json")), &got); err != nil || got.EffectiveMode != "plan" || got.Mode != "" {
		t.Errorf("S2 follows the project: %+v, %v", got, err)
	}
	for _, bad := range [][]string{{"S1", "mode", "yolo"}, {"S1", "add", "allow", "Bash(git"}, {"S1", "rm", "7"}, {"S1", "frobnicate"}, {}} {
		if code, _, _ := run(t, dir, append([]string{"permissions"}, bad...)...); code != ExitUsage {
			t.Errorf("permissions %q: exit %d, want %d", bad, code, ExitUsage)
		}
	}
	if code, _, errOut := run(t, dir, "permissions", "S9"); code != ExitError || !strings.Contains(errOut, "no session S9") {
		t.Errorf("missing session: %d %s", code, errOut)
	}
}

// TestRunAsker: `lazuli run` denies what the agent asks unless --yes, and
// says so on stderr.
func TestRunAsker(t *testing.T) {
	var errb bytes.Buffer
	req := agents.PermissionRequest{Tool: "Bash", Subject: "git push"}
	if a := runAsker(&errb, false)(context.Background(), req); a != agents.AnswerDeny || !strings.Contains(errb.String(), "denied Bash: git push") {
		t.Errorf("without --yes: %v, %q", a, errb.String())
	}
	if a := runAsker(&errb, true)(context.Background(), req); a != agents.AnswerAllow || !strings.Contains(errb.String(), "allowed Bash: git push") {
		t.Errorf("with --yes: %v, %q", a, errb.String())
	}
}

// TestMCPPermissionsCommand: the hidden `lazuli mcp-permissions --socket S`
// serves the MCP permission tool over stdio in its own process, as claude
// runs it, and forwards the request to the Lazuli listening on S.
func TestMCPPermissionsCommand(t *testing.T) {
	ctx := context.Background()
	seenc := make(chan permprompt.Request, 1)
	b, err := permprompt.Listen(func(_ context.Context, req permprompt.Request) permprompt.Response {
		seenc <- req
		return permprompt.Deny("not today")
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), cliArgsEnv+"="+strings.Join([]string{MCPPermissionsCommand, "--socket", b.Socket()}, "\n"))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: permprompt.ToolName,
		Arguments: map[string]any{"tool_name": "Bash", "input": map[string]any{"command": "git push"}, "tool_use_id": "toolu_9"}})
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("CallTool() = %+v, %v", res, err)
	}
	var resp permprompt.Response
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &resp); err != nil || resp.Behavior != "deny" || resp.Message != "not today" {
		t.Errorf("answer %+v, %v", resp, err)
	}
	if seen := <-seenc; seen.ToolName != "Bash" || string(seen.Input) != `{"command":"git push"}` {
		t.Errorf("Lazuli saw %+v", seen)
	}
	if IsCommand(MCPPermissionsCommand) != true {
		t.Errorf("the binary would open a window for %s", MCPPermissionsCommand)
	}
	var usage bytes.Buffer
	Run(ctx, &Env{Stdout: &usage, Stderr: &usage}, []string{"help"})
	if strings.Contains(usage.String(), MCPPermissionsCommand) {
		t.Errorf("the hidden command is listed in the usage")
	}
}
