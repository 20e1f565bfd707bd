package app

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// TestOpenSubagentOfEveryAgent: for the sub-agents of Gemini CLI, Qwen
// Code, OpenCode and Copilot CLI, imported by import-native from what the
// real CLIs wrote, "open sub-agent ›" on the parent's Task call opens the
// sub-agent's session, which shows "↖ parent" and goes back.
func TestOpenSubagentOfEveryAgent(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir()) // OpenCode's mirror
	testdata := filepath.Join("..", "agents")
	for _, c := range []struct {
		agent, dir, parent, call string
	}{
		{native.Gemini, filepath.Join(testdata, "gemini", "testdata", "subagent", "subagent.home", ".gemini", "tmp"),
			"e2cb0b0b-9c8b-470d-b1f3-4a514e19598f", "invoke_agent__call_fkm_0_0"},
		{native.Qwen, filepath.Join(testdata, "qwen", "testdata", "subagent", "subagent.home", ".qwen", "projects"),
			"ccbdc765-dfb8-4401-9ade-bd8e0fe6aa09", "call_fkm_0_0"},
		{native.OpenCode, "", "ses_dde2161e1ffes6w5OkD3f45rB5", "toolu_fkm_6_0"},
		{native.Copilot, filepath.Join(testdata, "copilot", "testdata", "capture", "session-state"),
			"3ae6ebc8-51de-4139-b69f-deeb912998b6", "toolu_fkm_6_0"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			fa := test.NewTempApp(t)
			dir := c.dir
			if c.agent == native.OpenCode {
				dir = unpackOpenCodeCapture(t, filepath.Join(testdata, "opencode", "testdata", "capture", "opencode-db.tar.gz"))
			}
			wt, st := openTestWorktree(t)
			bg := context.Background()
			scan, err := native.Scan(bg, native.Options{Dirs: native.Dirs{c.agent: dir}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := native.Import(bg, st, scan.Sessions, native.ImportOptions{FallbackWorktree: "main"})
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			var parentID, subID int64
			for _, r := range res {
				switch {
				case r.ID == c.parent:
					parentID = r.SessionID
				case r.ParentID == c.parent:
					subID = r.SessionID
				}
			}
			if parentID == 0 || subID == 0 {
				t.Fatalf("import %+v: no parent %s with a sub-agent", res, c.parent)
			}
			pw := testWindow(t, fa, wt)
			defer pw.close()
			parent := views.SessionRef{StorePath: wt.StorePath, ID: parentID}
			pw.shown.loadSession(parent, pw.shown.loadGen)
			pw.shown.OpenSubagent(parent, c.call)
			pw.wg.Wait()
			if pw.shown.current.ID != subID {
				t.Fatalf("OpenSubagent(S%d, %q) shows S%d, want the sub-agent's S%d", parentID, c.call, pw.shown.current.ID, subID)
			}
			if got := pw.mv.Header().ParentLink(); !strings.HasPrefix(got, "↖ ") {
				t.Fatalf("the sub-agent's parent link is %q", got)
			}
			pw.shown.OpenParent(pw.shown.current)
			pw.wg.Wait()
			if pw.shown.current != parent {
				t.Fatalf("OpenParent shows %v, want the parent %v", pw.shown.current, parent)
			}
		})
	}
}

// unpackOpenCodeCapture unpacks the captured OpenCode database (with its
// -wal and -shm) into a folder laid out as ~/.local/share/opencode.
func unpackOpenCodeCapture(t *testing.T, archive string) string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(h.Name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
