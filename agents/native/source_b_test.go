package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// copyTree copies the captured history under src (relative to the
// repository's agents folder) to a temporary folder.
func copyTree(tb testing.TB, src string) string {
	tb.Helper()
	dst := tb.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", src))); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// TestImportPiAndCopilot scans and imports the captured Pi sessions and
// Copilot CLI event logs, scoped to the folder they ran in, then imports
// again: nothing changed, nothing is read.
func TestImportPiAndCopilot(t *testing.T) {
	ctx := context.Background()
	piDir := copyTree(t, "pi/testdata/capture/sessions")
	cpDir := copyTree(t, "copilot/testdata/capture/session-state")
	for _, c := range []struct {
		agent, dir, workSuffix string
	}{{Pi, piDir, "TestCapturepi"}, {Copilot, cpDir, "TestCapturecopilot"}} {
		t.Run(c.agent, func(t *testing.T) {
			scan := mustScan(t, Options{Dirs: Dirs{c.agent: c.dir}})
			if len(scan.Sessions) != 2 || len(scan.Skipped) != 0 {
				t.Fatalf("scan: %d sessions, skipped %v", len(scan.Sessions), scan.Skipped)
			}
			project := scan.Sessions[0].Cwd
			if !strings.Contains(project, c.workSuffix) || !strings.HasSuffix(project, "/work") {
				t.Fatalf("cwd %q", project)
			}
			for _, n := range scan.Sessions {
				if n.ID == "" || n.FirstPrompt == "" || n.Started.IsZero() || n.Agent != c.agent {
					t.Errorf("preview %+v", n)
				}
			}
			if got := mustScan(t, Options{Dirs: Dirs{c.agent: c.dir}, Project: "/elsewhere"}); len(got.Sessions) != 0 {
				t.Errorf("a scan of another project found %d sessions", len(got.Sessions))
			}
			st := mustOpenStore(t)
			res := mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "main"})
			if got := outcomes(res); got[Imported] != 2 {
				t.Fatalf("outcomes %v: %+v", got, res)
			}
			mustCheck(t, st)
			for _, r := range res {
				evs, err := st.Events().All(ctx, r.SessionID)
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) != r.Events || evs[0].Event.Kind != codec.KindInit || evs[len(evs)-1].Event.Kind != codec.KindComplete {
					t.Errorf("%s: %d events stored, result says %d", r.ID, len(evs), r.Events)
				}
			}
			again := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{c.agent: c.dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
			if got := outcomes(again); got[Unchanged] != 2 {
				t.Errorf("re-import outcomes %v, want both unchanged", got)
			}
		})
	}
}
