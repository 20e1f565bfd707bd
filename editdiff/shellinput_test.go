package editdiff

import (
	"encoding/json"
	"testing"
)

// A shell call carrying an apply_patch envelope (how older Codex rollouts
// record edits) is a patch, as a string command or an argv; any other
// command is not.
func TestShellInputPatch(t *testing.T) {
	const patch = "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"
	argv, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", "apply_patch <<'PATCH'\n" + patch + "\nPATCH\n"}})
	str, _ := json.Marshal(map[string]any{"command": "apply_patch <<'PATCH'\n" + patch + "\nPATCH"})
	cmd, _ := json.Marshal(map[string]any{"cmd": "apply_patch <<'PATCH'\n" + patch + "\nPATCH"})
	for _, in := range [][]byte{argv, str, cmd} {
		if !IsShellPatch(in) {
			t.Errorf("IsShellPatch(%s) = false", in)
		}
		files := Files("", in)
		if len(files) != 1 || files[0].Path != "a.go" || len(files[0].Lines) != 3 {
			t.Errorf("Files(%s) = %+v", in, files)
		}
		if got := unifiedText(Unified("Bash", "", in)); got != "**** Begin Patch\n**** Update File: a.go\n@@@\n--x\n++y\n**** End Patch\n" {
			t.Errorf("Unified(%s) =\n%s", in, got)
		}
	}
	for _, in := range []string{`{"command":"ls -la"}`, `{"command":["bash","-lc","echo '*** Begin Patch'"]}`, `{}`, `[1`} {
		if IsShellPatch(json.RawMessage(in)) {
			t.Errorf("IsShellPatch(%s) = true", in)
		}
	}
}
