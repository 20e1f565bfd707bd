package cli

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// Environment of the killed writer (see killedWriterMain).
const (
	killedWriterEnv  = "LAZULI_CLI_TEST_KILLED_WRITER" // "journal" or "wal"
	killedWriterPath = "LAZULI_CLI_TEST_STORE"
)

// killedWriterMain runs in a child process: it writes to the store at
// $LAZULI_CLI_TEST_STORE without finishing, says "ready" and waits to be
// killed. In "journal" mode it is in the middle of a transaction whose
// pages have spilled into the file (a rollback journal beside it); in
// "wal" mode it has committed a session into the WAL file, which its
// kill leaves un-checkpointed.
func killedWriterMain() int {
	mode, path := os.Getenv(killedWriterEnv), os.Getenv(killedWriterPath)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=cache_size(2)")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	db.SetMaxOpenConns(1)
	stmts := []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0",
		"INSERT INTO sessions(worktree, name) VALUES ('main', 'committed in the WAL')"}
	if mode == "journal" {
		stmts = []string{"PRAGMA journal_mode = DELETE", "BEGIN IMMEDIATE"}
		for range 200 { // more pages than the cache holds: they spill into the file
			stmts = append(stmts, "INSERT INTO sessions(worktree, name) VALUES ('main', '"+strings.Repeat("x", 4000)+"')")
		}
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			fmt.Fprintln(os.Stderr, q[:min(len(q), 40)], err)
			return 1
		}
	}
	fmt.Println("ready")
	time.Sleep(time.Hour) // killed long before
	return 1
}

// killWriterMidway runs killedWriterMain on path and kills it with
// SIGKILL once it is ready.
func killWriterMidway(t *testing.T, path, mode string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killedWriterEnv+"="+mode, killedWriterPath+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if line != "ready\n" {
		t.Fatalf("the writer did not get ready: %s", stderr.String())
	}
}

// TestReadCommandsLeaveInterruptedStore: with a writer killed in the
// middle of a transaction (a hot journal beside the store), or after
// committing into a WAL file it never checkpointed, every reading command
// leaves the store, its modification time and the journal or WAL file as
// they were, and shows what was committed.
func TestReadCommandsLeaveInterruptedStore(t *testing.T) {
	for _, tt := range []struct {
		mode, sidecar string
		sessions      int // committed
	}{
		{"journal", "-journal", 1},
		{"wal", "-wal", 2},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			dir := t.TempDir()
			path := makeSearchStore(t, dir, "kept", "the committed answer", "second event")
			killWriterMidway(t, path, tt.mode)
			type state struct {
				data, side []byte
				mtime      time.Time
			}
			stateNow := func() state {
				t.Helper()
				data, err1 := os.ReadFile(path)
				side, err2 := os.ReadFile(path + tt.sidecar)
				st, err3 := os.Stat(path)
				if err1 != nil || err2 != nil || err3 != nil {
					t.Fatalf("%v %v %v", err1, err2, err3)
				}
				return state{data, side, st.ModTime()}
			}
			before := stateNow()
			if len(before.side) == 0 {
				t.Fatalf("%s is empty: nothing interrupted", tt.sidecar)
			}
			out := filepath.Join(t.TempDir(), "export.md")
			for _, args := range [][]string{
				{"ls"}, {"ls", "--json"}, {"show", "1"}, {"show", "1", "--json"}, {"context", "1", "next"},
				{"search", "committed"}, {"search", "--json", "committed"}, {"dump"}, {"check"},
				{"export", "1", "-o", out}, {"reindex"},
			} {
				code, stdout, errOut := run(t, dir, args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errOut)
				}
				after := stateNow()
				if !bytes.Equal(before.data, after.data) || !before.mtime.Equal(after.mtime) {
					t.Fatalf("%v changed the store (mtime %v → %v)", args, before.mtime, after.mtime)
				}
				if !bytes.Equal(before.side, after.side) {
					t.Fatalf("%v changed %s", args, tt.sidecar)
				}
				if args[0] == "show" && !strings.Contains(stdout, "the committed answer") {
					t.Errorf("%v does not show the committed event: %s", args, stdout)
				}
				if args[0] == "search" && !strings.Contains(stdout, "committed answer") {
					t.Errorf("%v does not find the committed event: %s", args, stdout)
				}
			}
			st, err := store.OpenReadOnly(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if list, err := st.ListSessions(context.Background(), ""); err != nil || len(list) != tt.sessions {
				t.Errorf("listed %d sessions, %v; want %d", len(list), err, tt.sessions)
			}
		})
	}
}
