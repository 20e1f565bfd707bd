package export

import (
	"path/filepath"
	"strings"
	"testing"
)

// An older Codex rollout records its edits as apply_patch run through the
// shell (bash -lc 'apply_patch <<'PATCH' …'): 29 of them in this
// fixture. Each exports as a diff, not as a shell command.
func TestShellPatchExportsAsDiff(t *testing.T) {
	const rel = "D_agentcmd_rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
	events := fixtureEvents(t, filepath.Join("transcripts", rel))
	src := loadReadOnly(t, storeWith(t, "shell patches", events))
	md := render(t, src, Markdown)
	if n := strings.Count(md, "```diff\n*** Begin Patch"); n != 29 {
		t.Errorf("Markdown has %d apply_patch diffs, want 29", n)
	}
	if strings.Contains(md, "apply_patch <<'PATCH'") {
		t.Error("Markdown still shows an apply_patch shell command")
	}
	if !strings.Contains(md, "#### Bash `apps/spectora-labs/src/domain/teams/services/getTeamsWithStats.ts`") {
		t.Errorf("a shell patch's header does not name its file:\n%.2000s", md)
	}
	html := render(t, src, HTML)
	if n := strings.Count(html, `<pre class="diff"><span class="l file">*** Begin Patch`); n != 29 {
		t.Errorf("HTML has %d apply_patch diffs, want 29", n)
	}
}
