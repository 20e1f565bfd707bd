package app

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// TestRefreshAfterCopyOver copies AZUREAL-written stores one after another
// over a worktree's store while its window is open (a user restoring a
// backup), and lists them the way the window's refresh does after its
// watch saw the file change: the counts must be the new file's, every
// time (issue 14 item 2). The pairs are stores whose sessions, last row
// and change counter look alike.
func TestRefreshAfterCopyOver(t *testing.T) {
	dir := fixtures.Dir(t, "reference")
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	wtDir := t.TempDir()
	wt := Worktree{Dir: wtDir, Branch: "main", StorePath: filepath.Join(wtDir, StoreRelPath)}
	if err := os.MkdirAll(filepath.Dir(wt.StorePath), 0o755); err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()

	seq := []string{"C_agentcmd_stream-output-3", "C_agentcmd_stream-output-2", "C_agentcmd_stream-output-5",
		"C_agentcmd_stream-output-4", "C_daydream_golden", "C_agentcmd_stream-output-5", "D_CodexBar_live-fork-child",
		"D_agent-sessions_codex-small", "C_agentcmd_stream-output-multi-1", "C_AZUREAL_codex_resume_capture"}
	mtime := time.Now()
	for i, name := range seq {
		src := filepath.Join(dir, name+".azs")
		copyInto(t, src, wt.StorePath)
		mtime = mtime.Add(time.Second) // a person's copies are seconds apart
		if err := os.Chtimes(wt.StorePath, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		want := countsOf(t, src)
		quick, complete, errs := pw.list.listGroupsQuick()
		full, errs2 := pw.list.listGroups()
		if len(errs) > 0 || len(errs2) > 0 {
			t.Fatalf("step %d (%s): %v %v", i, name, errs, errs2)
		}
		for what, groups := range map[string][]views.WorktreeGroup{"full": full, "quick": quick} {
			if what == "quick" && !complete {
				continue
			}
			if got := groupCounts(groups); !maps.Equal(got, want) {
				t.Errorf("step %d, %s over %s: %s list counts %v, want %v", i, name, seq[max(i-1, 0)], what, got, want)
			}
		}
	}
}

// sessionCounts are the counts the sidebar shows of one session.
type sessionCounts struct{ events, messages, chars int64 }

// countsOf lists a store with an empty cache, from a copy of its own.
func countsOf(t *testing.T, src string) map[int64]sessionCounts {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sessions.azs")
	copyInto(t, src, path)
	prev := os.Getenv(store.CacheDirEnv)
	t.Setenv(store.CacheDirEnv, t.TempDir())
	defer t.Setenv(store.CacheDirEnv, prev)
	return groupCounts([]views.WorktreeGroup{{Sessions: listReadOnly(t, path)}})
}

func groupCounts(groups []views.WorktreeGroup) map[int64]sessionCounts {
	out := map[int64]sessionCounts{}
	for _, g := range groups {
		for _, s := range g.Sessions {
			out[s.ID] = sessionCounts{s.EventCount, s.MessageCount, s.CharsSinceCompaction}
		}
	}
	return out
}

func copyInto(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
