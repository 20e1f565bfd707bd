package store

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// copyOverPairs are the fixture stores (shared azs and reference, without
// .azs) that the list cache took for one another when the second was
// copied over the first, before the cache proved its rows (issue 14 item
// 2): the same session keys, last row, change counter and page count.
var copyOverPairs = [][2]string{
	{"B_sniffly_d3ad4cdc-5657-435d-98fa-0035d53e383d", "D_agentcmd_rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a"},
	{"C_agentcmd_stream-output-2", "C_agentcmd_stream-output-3"},
	{"C_agentcmd_stream-output-3", "C_agentcmd_stream-output-2"},
	{"C_agentcmd_stream-output-4", "C_agentcmd_stream-output-5"},
	{"C_agentcmd_stream-output-4", "C_daydream_golden"},
	{"C_agentcmd_stream-output-4", "D_agent-sessions_codex-small"},
	{"C_agentcmd_stream-output-5", "C_agentcmd_stream-output-4"},
	{"C_agentcmd_stream-output-5", "C_daydream_golden"},
	{"C_agentcmd_stream-output-5", "D_agent-sessions_codex-small"},
	{"C_agentcmd_stream-output-multi-1", "C_AZUREAL_codex_resume_capture"},
	{"C_agentcmd_stream-output-multi-1", "C_AZUREAL_codex_stdout_capture"},
	{"C_agentcmd_stream-output-multi-1", "C_agentcmd_stream-output-1"},
	{"C_agentcmd_stream-output-multi-1", "C_agentcmd_stream-output-2"},
	{"C_agentcmd_stream-output-multi-1", "C_agentcmd_stream-output-3"},
	{"C_agentcmd_stream-output-multi-1", "C_agentcmd_stream-output-4"},
	{"C_agentcmd_stream-output-multi-1", "C_agentcmd_stream-output-5"},
	{"C_agentcmd_stream-output-multi-1", "C_daydream_golden"},
	{"C_agentcmd_stream-output-multi-1", "D_agent-sessions_codex-small"},
	{"C_daydream_golden", "C_agentcmd_stream-output-4"},
	{"C_daydream_golden", "C_agentcmd_stream-output-5"},
	{"C_daydream_golden", "D_agent-sessions_codex-small"},
	{"D_CodexBar_live-fork-child", "C_AZUREAL_codex_resume_capture"},
	{"D_CodexBar_live-fork-child", "C_AZUREAL_codex_stdout_capture"},
	{"D_CodexBar_live-fork-child", "C_agentcmd_stream-output-1"},
	{"D_CodexBar_live-fork-child", "C_agentcmd_stream-output-2"},
	{"D_CodexBar_live-fork-child", "C_agentcmd_stream-output-3"},
	{"D_CodexBar_live-fork-child", "C_agentcmd_stream-output-4"},
	{"D_CodexBar_live-fork-child", "C_agentcmd_stream-output-5"},
	{"D_CodexBar_live-fork-child", "C_daydream_golden"},
	{"D_CodexBar_live-fork-child", "D_agent-sessions_codex-small"},
	{"D_CodexBar_live-fork-parent", "C_AZUREAL_codex_resume_capture"},
	{"D_CodexBar_live-fork-parent", "C_AZUREAL_codex_stdout_capture"},
	{"D_CodexBar_live-fork-parent", "C_agentcmd_stream-output-1"},
	{"D_CodexBar_live-fork-parent", "C_agentcmd_stream-output-2"},
	{"D_CodexBar_live-fork-parent", "C_agentcmd_stream-output-3"},
	{"D_CodexBar_live-fork-parent", "C_agentcmd_stream-output-4"},
	{"D_CodexBar_live-fork-parent", "C_agentcmd_stream-output-5"},
	{"D_CodexBar_live-fork-parent", "C_daydream_golden"},
	{"D_CodexBar_live-fork-parent", "D_agent-sessions_codex-small"},
}

// copyOverSequence is every fixture store in name order, forwards and
// backwards (the reproduction), then the pairs above one after
// another.
func copyOverSequence(t *testing.T) []string {
	t.Helper()
	stores := append(fixtureStores(t, "azs"), fixtureStores(t, "reference")...)
	seq := append([]string(nil), stores...)
	for i := len(stores) - 1; i >= 0; i-- {
		seq = append(seq, stores[i])
	}
	dir := fixtureDir(t, "reference")
	for _, p := range copyOverPairs {
		seq = append(seq, filepath.Join(dir, p[0]+".azs"), filepath.Join(dir, p[1]+".azs"))
	}
	return seq
}

// freshLists lists every store of seq with an empty cache.
func freshLists(t *testing.T, seq []string) map[string][]Session {
	t.Helper()
	want := map[string][]Session{}
	for _, src := range seq {
		if _, ok := want[src]; !ok {
			want[src] = listFresh(t, copyToWorktree(t, src))
		}
	}
	return want
}

// TestListCacheCopyOverFixtures copies the fixture stores one after another
// over one path with one cache folder, as a user restoring backups does,
// and lists each with a new Store (a run of lazuli ls): the counts must be
// those of a count without a cache, every time.
func TestListCacheCopyOverFixtures(t *testing.T) {
	seq := copyOverSequence(t)
	want := freshLists(t, seq)
	useCacheDir(t, t.TempDir())
	path := filepath.Join(t.TempDir(), "sessions.azs")
	for i, src := range seq {
		copyFile(t, src, path)
		got, _ := listWith(t, path, Open)
		if !reflect.DeepEqual(got, want[src]) {
			t.Errorf("step %d, %s copied over %s: list\n%+v\nwant\n%+v", i, filepath.Base(src), prevName(seq, i), got, want[src])
		}
	}
}

// TestListCacheCopyOverOpenStore is the copy-over with one Store open all
// along, as the window keeps it: its counts in memory, and SQLite's page
// cache, must follow the file. A Store learns of a replaced file from its
// inode, size and mtime (see followFile); copies a person makes are
// seconds apart, so each copy here gets its own mtime, as the file
// system's clock tick may be coarser than two copies of this loop.
func TestListCacheCopyOverOpenStore(t *testing.T) {
	seq := copyOverSequence(t)
	want := freshLists(t, seq)
	useCacheDir(t, t.TempDir())
	path := filepath.Join(t.TempDir(), "sessions.azs")
	copyFile(t, seq[0], path)
	s := mustOpenPath(t, path)
	defer s.Close()
	mtime := time.Now()
	for i, src := range seq {
		copyFile(t, src, path)
		mtime = mtime.Add(time.Second)
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		got, err := s.Sessions().List(context.Background(), "")
		if err != nil || !reflect.DeepEqual(got, want[src]) {
			t.Errorf("step %d, %s copied over %s: list (%v)\n%+v\nwant\n%+v", i, filepath.Base(src), prevName(seq, i), err, got, want[src])
		}
	}
}

func prevName(seq []string, i int) string {
	if i == 0 {
		return "nothing"
	}
	return strings.TrimSuffix(filepath.Base(seq[i-1]), ".azs")
}
