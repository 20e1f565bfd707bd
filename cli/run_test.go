package cli

import (
	"strings"
	"testing"
)

// TestRunRejectsFlagLikePrompt: `lazuli run "--help"` was taken for
// Lazuli's own --help (exit 0, nothing run). A prompt that looks like an
// option is refused with a one-line hint; after -- it is a prompt.
func TestRunRejectsFlagLikePrompt(t *testing.T) {
	t.Setenv("LAZULI_CLAUDE", "/nonexistent/claude")
	dir := t.TempDir()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-v is broken"}, {"--json", "--fix the build"}} {
		code, _, errOut := run(t, dir, append([]string{"run"}, args...)...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 2 || !strings.Contains(first, "looks like an option") || !strings.Contains(first, "lazuli run -- ") {
			t.Errorf("run %q: exit %d, stderr %q", args, code, errOut)
		}
	}
	for _, args := range [][]string{{"--", "--help"}, {"--json", "--model", "opus", "--", "-v is broken"}, {"--model=opus", "hello"}} {
		code, _, errOut := run(t, dir, append([]string{"run"}, args...)...)
		if code != 1 || !strings.Contains(errOut, "/nonexistent/claude") {
			t.Errorf("run %q: exit %d, stderr %q; want the prompt accepted (and the missing CLI reported)", args, code, errOut)
		}
	}
}

// TestRunNameFlag: --name names the new session (without it RunWorkflow
// names it after the prompt); it names no session that is continued.
func TestRunNameFlag(t *testing.T) {
	dir := t.TempDir()
	req, err := parseRunArgs(&Env{Dir: dir}, []string{"--name", "Login", "fix the login form"})
	if err != nil || req.opts.Name != "Login" || req.session != 0 {
		t.Fatalf("req %+v, err %v", req, err)
	}
	if req, err = parseRunArgs(&Env{Dir: dir}, []string{"fix the login form"}); err != nil || req.opts.Name != "" {
		t.Fatalf("without --name: name %q, err %v", req.opts.Name, err)
	}
	if _, err := parseRunArgs(&Env{Dir: dir}, []string{"--session", "S1", "--name", "Login", "go on"}); err == nil ||
		!strings.Contains(err.Error(), "--name names a new session") {
		t.Errorf("--name with --session: %v", err)
	}
}
