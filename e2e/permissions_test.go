package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
)

// touchScript makes claude run `touch ran.txt` with Bash, then answer.
func touchScript() fm.Script {
	return fm.Script{fm.Tools("Touching ran.txt.", fm.Bash("touch ran.txt")), fm.Text("Finished.")}
}

// TestAskThroughLazuli: the real claude, in a session whose mode is ask,
// asks Lazuli's permission prompt tool (the lazuli binary's MCP server)
// before running Bash; `lazuli run` denies (the tool does not run, and
// claude is told the user denied it) and `lazuli run --yes` allows it
// once (the tool runs). Nothing sets IS_SANDBOX: ask mode runs as root.
func TestAskThroughLazuli(t *testing.T) {
	fm.NeedCLI(t, "claude")
	h := newHarness(t, touchScript())
	h.setEnv("IS_SANDBOX=", "LAZULI_CONFIG_DIR="+t.TempDir())
	h.ok("permissions", "--store", h.store, "--project", "mode", "ask")

	rr, r := h.run(backend{name: "claude"}, "Touch ran.txt.")
	if rr.Session != 1 || !strings.Contains(r.stderr, "denied Bash: touch ran.txt") {
		t.Fatalf("want the ask denied by lazuli run:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(h.work, "ran.txt")); !os.IsNotExist(err) {
		t.Errorf("ran.txt exists after a deny (%v): the tool ran", err)
	}
	evs := h.show(1)
	res := kinds(evs, "ToolResult")
	if len(res) != 1 || res[0].field("is_error") != "true" || !strings.Contains(res[0].String(), "denied") {
		t.Errorf("want one failed Bash result saying it was denied\n%s", dumpEvents(evs))
	}
	if reqs := h.srv.Model(); len(reqs) == 0 {
		t.Errorf("the model was never asked")
	}

	rr, r = h.run(backend{name: "claude"}, "--yes", "--session", "1", "Touch ran.txt.")
	if rr.Completed == nil || !*rr.Completed || !strings.Contains(r.stderr, "allowed Bash: touch ran.txt (--yes)") {
		t.Fatalf("want the ask allowed with --yes:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(h.work, "ran.txt")); err != nil {
		t.Errorf("ran.txt missing after allow: %v", err)
	}
	h.check()
}

// TestRootRunsClaude: as root, with no variable that defeats claude's root
// check, a session in the default bypass mode runs (claude refuses
// --dangerously-skip-permissions there): Lazuli runs it in acceptEdits,
// so a Write goes through, and says so once on stderr.
func TestRootRunsClaude(t *testing.T) {
	fm.NeedCLI(t, "claude")
	if os.Geteuid() != 0 {
		t.Skip("not root")
	}
	h := newHarness(t, fm.Script{
		fm.Tools("Writing.", fm.Call("Write", map[string]any{"file_path": "{{CWD}}/notes.txt", "content": "alpha\n"})),
		fm.Text("Written.")})
	h.setEnv("IS_SANDBOX=", "LAZULI_CONFIG_DIR="+t.TempDir())
	rr, r := h.run(backend{name: "claude"}, "Write notes.txt.")
	if r.code != 0 || rr.Completed == nil || !*rr.Completed {
		t.Fatalf("want a completed run as root:\n%s", r)
	}
	if n := strings.Count(r.stderr, "Running as root"); n != 1 {
		t.Errorf("root notice shown %d times:\n%s", n, r)
	}
	if got, err := os.ReadFile(filepath.Join(h.work, "notes.txt")); err != nil || string(got) != "alpha\n" {
		t.Errorf("notes.txt = %q, %v", got, err)
	}
}

// TestCodexModes: the real codex accepts the sandbox and approval flags of
// each mode but bypass and completes a turn with them; the rules it
// cannot apply are listed, never passed.
func TestCodexModes(t *testing.T) {
	fm.NeedCLI(t, "codex")
	for _, mode := range []string{"acceptEdits", "plan", "ask"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, fm.Script{fm.Text("Nothing to change.")})
			h.setEnv("LAZULI_CONFIG_DIR=" + t.TempDir())
			h.ok("permissions", "--store", h.store, "--project", "mode", mode)
			h.ok("permissions", "--store", h.store, "--project", "add", "allow", "Bash(git *)")
			rr, r := h.run(backend{name: "codex"}, "Look around.")
			if r.code != 0 || rr.Completed == nil || !*rr.Completed {
				t.Fatalf("want a completed codex run in %s mode:\n%s", mode, r)
			}
			out := h.ok("permissions", "--store", h.store, "S1").stdout
			if !strings.Contains(out, "codex: allow Bash(git *): codex has no per-tool rules") {
				t.Errorf("the rule codex cannot apply is not listed:\n%s", out)
			}
		})
	}
}

// TestAlwaysRuleReachesClaude: with the rule an "Always allow" on a Write
// records (Edit with the file's absolute path, as lazuli permissions
// shows it), the real claude writes the file in ask mode without the user
// being asked (the rule goes to claude's --allowedTools, and Lazuli's
// prompt tool answers by it too).
func TestAlwaysRuleReachesClaude(t *testing.T) {
	fm.NeedCLI(t, "claude")
	h := newHarness(t, fm.Script{
		fm.Tools("Writing.", fm.Call("Write", map[string]any{"file_path": "{{CWD}}/notes.txt", "content": "alpha\n"})),
		fm.Text("Written.")})
	h.setEnv("IS_SANDBOX=", "LAZULI_CONFIG_DIR="+t.TempDir())
	h.ok("permissions", "--store", h.store, "--project", "mode", "ask")
	notes := filepath.Join(h.work, "notes.txt")
	if _, r := h.run(backend{name: "claude"}, "Write notes.txt."); !strings.Contains(r.stderr, "denied Write: "+notes) {
		t.Fatalf("want the Write asked and denied:\n%s", r)
	}
	h.ok("permissions", "--store", h.store, "S1", "add", "allow", "Edit(/"+notes+")")
	rr, r := h.run(backend{name: "claude"}, "--session", "1", "Write notes.txt.")
	if rr.Completed == nil || !*rr.Completed || strings.Contains(r.stderr, "denied") || strings.Contains(r.stderr, "allowed") {
		t.Fatalf("want the Write run without asking:\n%s", r)
	}
	if got, err := os.ReadFile(notes); err != nil || string(got) != "alpha\n" {
		t.Errorf("notes.txt = %q, %v", got, err)
	}
}

// TestRulesHoldAgainstHostileRequests: the real claude, in ask mode, asks
// Lazuli about what its own rules do not settle, and Lazuli's answer
// follows the rules no more loosely than they say (issue 28): an allow
// of `git *` does not approve `git --version && touch pwned.txt`, an
// allow of `Edit(src/**)` does not approve a write to src/../../, and a
// deny of `rm *` holds over --yes however rm is spelled.
func TestRulesHoldAgainstHostileRequests(t *testing.T) {
	fm.NeedCLI(t, "claude")
	t.Run("compound command", func(t *testing.T) {
		h := newHarness(t, fm.Script{fm.Tools("Checking.", fm.Bash("git --version && touch pwned.txt")), fm.Text("Done.")})
		h.setEnv("IS_SANDBOX=", "LAZULI_CONFIG_DIR="+t.TempDir())
		h.ok("permissions", "--store", h.store, "--project", "mode", "ask")
		h.ok("permissions", "--store", h.store, "--project", "add", "allow", "Bash(git *)")
		_, r := h.run(backend{name: "claude"}, "Check git.")
		if _, err := os.Stat(filepath.Join(h.work, "pwned.txt")); !os.IsNotExist(err) {
			t.Errorf("pwned.txt exists (%v): allow Bash(git *) approved a compound command\n%s", err, r)
		}
		if !strings.Contains(r.stderr, "denied Bash: git --version && touch pwned.txt") {
			t.Errorf("want the compound command asked about (and denied without --yes):\n%s", r)
		}
	})
	t.Run("path out of the worktree", func(t *testing.T) {
		h := newHarness(t, fm.Script{
			fm.Tools("Writing.", fm.Call("Write", map[string]any{"file_path": "{{CWD}}/../src/escaped.txt", "content": "x\n"})),
			fm.Text("Written.")})
		h.setEnv("IS_SANDBOX=", "LAZULI_CONFIG_DIR="+t.TempDir())
		h.ok("permissions", "--store", h.store, "--project", "mode", "ask")
		h.ok("permissions", "--store", h.store, "--project", "add", "allow", "Edit(src/**)")
		escaped := filepath.Join(filepath.Dir(h.work), "src", "escaped.txt")
		_, r := h.run(backend{name: "claude"}, "Write it.")
		if _, err := os.Stat(escaped); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v): allow Edit(src/**) approved a path outside the worktree\n%s", escaped, err, r)
		}
	})
	// claude's own matcher catches the first two; Lazuli must catch them
	// all, since it answers what claude asks about.
	for _, cmd := range []string{"echo hi;/bin/rm -f victim.txt", `echo hi; \rm -f victim.txt`, `sh -c "rm -f victim.txt"`,
		"find . -name victim.txt -exec rm {} +"} {
		t.Run("deny over yes: "+cmd, func(t *testing.T) {
			h := newHarness(t, fm.Script{fm.Tools("Cleaning.", fm.Bash(cmd)), fm.Text("Done.")})
			h.setEnv("IS_SANDBOX=", "LAZULI_CONFIG_DIR="+t.TempDir())
			victim := filepath.Join(h.work, "victim.txt")
			if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h.ok("permissions", "--store", h.store, "--project", "mode", "ask")
			h.ok("permissions", "--store", h.store, "--project", "add", "deny", "Bash(rm *)")
			_, r := h.run(backend{name: "claude"}, "--yes", "Clean up.")
			if _, err := os.Stat(victim); err != nil {
				t.Errorf("victim.txt is gone (%v): deny Bash(rm *) did not hold over --yes\n%s", err, r)
			}
		})
	}
}
