package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// lifecycleStore writes a store in dir with one session "plan" of two
// prompts (seqs 1 and 3) and returns its path.
func lifecycleStore(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Sessions().Create(ctx, "main", "plan")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Events().Append(ctx, sess.ID, []codec.Event{codec.UserMessage("one"), codec.AssistantText("a"),
		codec.UserMessage("two"), codec.AssistantText("b")}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestForkCommand: lazuli fork makes the fork and reports it; a fork
// point that is not a prompt, or a missing --at, is a one-line error that
// leaves the file as it was.
func TestForkCommand(t *testing.T) {
	dir := t.TempDir()
	path := lifecycleStore(t, dir)
	code, out, errOut := run(t, dir, "fork", "S1", "--at", "3", "--json")
	if code != 0 {
		t.Fatalf("fork exit %d: %s", code, errOut)
	}
	var got struct {
		ID        int64  `json:"id"`
		Name      string `json:"name"`
		Events    int64  `json:"event_count"`
		ParentID  int64  `json:"parent_id"`
		ParentSeq int64  `json:"parent_seq"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.ID != 2 || got.Name != "plan ⑂ 1" || got.ParentID != 1 || got.ParentSeq != 3 {
		t.Errorf("fork printed %s", out)
	}
	code, out, _ = run(t, dir, "fork", "--name", "retry", "1", "--at", "1")
	if code != 0 || !strings.HasPrefix(out, "S3 retry: 0 event(s) of S1 before seq 1") {
		t.Errorf("fork exit %d: %q", code, out)
	}
	before := fileHash(t, path)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fork", "S1", "--at", "2"}, ExitError, "S1 has no prompt at seq 2"},
		{[]string{"fork", "S1"}, ExitUsage, "--at SEQ is required"},
		{[]string{"fork", "S9", "--at", "1"}, ExitError, "no session S9"},
	} {
		code, _, errOut := run(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) || strings.Count(errOut, "\n") > 2 {
			t.Errorf("%v: exit %d, %q", tc.args, code, errOut)
		}
	}
	if fileHash(t, path) != before {
		t.Errorf("a failed fork changed the file")
	}
}

// TestPinArchiveCommands: pin and archive mark a session; ls hides the
// archived one unless --all, which reports both marks in --json; unarchive
// and unpin clear them; a missing session is a one-line error.
func TestPinArchiveCommands(t *testing.T) {
	dir := t.TempDir()
	lifecycleStore(t, dir)
	if code, _, errOut := run(t, dir, "fork", "S1", "--at", "3"); code != 0 {
		t.Fatal(errOut)
	}
	for _, args := range [][]string{{"pin", "S1"}, {"archive", "2"}} {
		if code, out, errOut := run(t, dir, args...); code != 0 || !strings.Contains(out, args[0]+"ned") && !strings.Contains(out, args[0]+"d") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
		}
	}
	type entry struct {
		ID       int64 `json:"id"`
		Pinned   bool  `json:"pinned"`
		Archived bool  `json:"archived"`
	}
	ls := func(args ...string) []entry {
		t.Helper()
		code, out, errOut := run(t, dir, append([]string{"ls", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("ls exit %d: %s", code, errOut)
		}
		var got []entry
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return got
	}
	if got := ls(); len(got) != 1 || got[0] != (entry{1, true, false}) {
		t.Errorf("ls --json = %+v, want S1 pinned only", got)
	}
	if got := ls("--all"); len(got) != 2 || got[0] != (entry{2, false, true}) || got[1] != (entry{1, true, false}) {
		t.Errorf("ls --all --json = %+v", got)
	}
	if _, out, _ := run(t, dir, "ls", "--all"); !strings.Contains(out, "[archived] plan ⑂ 1") || !strings.Contains(out, "[pinned] plan") {
		t.Errorf("ls --all:\n%s", out)
	}
	for _, args := range [][]string{{"unpin", "S1"}, {"unarchive", "S2"}} {
		if code, _, errOut := run(t, dir, args...); code != 0 {
			t.Errorf("%v: %s", args, errOut)
		}
	}
	if got := ls(); len(got) != 2 || got[0] != (entry{2, false, false}) || got[1] != (entry{1, false, false}) {
		t.Errorf("ls --json after = %+v", got)
	}
	if code, _, errOut := run(t, dir, "archive", "S9"); code != ExitError || !strings.Contains(errOut, "no session S9") {
		t.Errorf("archive S9: exit %d, %q", code, errOut)
	}
}
