package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
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

// folderFiles is every file in dir: its bytes and modification time.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprintf("%s %x", st.ModTime(), sha256.Sum256(data))
	}
	return out
}

// closeInWAL switches the store at path to WAL mode, commits a session and
// closes it, as another program that uses WAL mode leaves it: the header
// says WAL, and there is neither a -wal nor a -shm file.
func closeInWAL(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode = WAL", "INSERT INTO sessions(worktree, name) VALUES ('main', 'committed in WAL mode')"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadCommandsLeaveInterruptedStore: with a writer killed in the
// middle of a transaction (a hot journal beside the store), or after
// committing into a WAL file it never checkpointed (a -wal and a -shm
// file beside it), or with the store left in WAL mode by a program that
// closed it, every reading command leaves each file of the store's folder
// byte for byte as it was (the store, its journal, -wal and -shm files,
// and their absence: no file appears), and shows what was committed.
func TestReadCommandsLeaveInterruptedStore(t *testing.T) {
	for _, tt := range []struct {
		mode     string
		sidecars []string // beside the store
		sessions int      // committed
	}{
		{"journal", []string{"-journal"}, 1},
		{"wal", []string{"-wal", "-shm"}, 2},
		{"wal-closed", nil, 2},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			dir := t.TempDir()
			path := makeSearchStore(t, dir, "kept", "the committed answer", "second event")
			if tt.mode == "wal-closed" {
				closeInWAL(t, path)
			} else {
				killWriterMidway(t, path, tt.mode)
			}
			folder := filepath.Dir(path)
			before := folderFiles(t, folder)
			for _, side := range tt.sidecars {
				if st, err := os.Stat(path + side); err != nil || st.Size() == 0 {
					t.Fatalf("%s is missing or empty: nothing interrupted (%v)", side, err)
				}
			}
			if len(before) != 1+len(tt.sidecars) {
				t.Fatalf("the folder holds %v, want the store and %v", before, tt.sidecars)
			}
			out := filepath.Join(t.TempDir(), "export.md")
			for _, args := range [][]string{
				{"ls"}, {"ls", "--json"}, {"show", "1"}, {"show", "1", "--json"}, {"context", "1", "next"},
				{"search", "committed"}, {"search", "--json", "committed"}, {"dump"}, {"check"},
				{"export", "1", "-o", out}, {"reindex"}, {"stats"}, {"files"}, {"refs"},
				{"sql", "SELECT COUNT(*) AS n FROM events WHERE json LIKE '%committed answer%'"},
				{"sql", "SELECT COUNT(*) AS n FROM s0.sessions"},
				{"chronicle", "standup", "--agent", "builtin", "--since", "all"},
			} {
				code, stdout, errOut := run(t, dir, args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errOut)
				}
				after := folderFiles(t, folder)
				if fmt.Sprint(after) != fmt.Sprint(before) {
					t.Fatalf("%v changed the store's folder:\n%v\nwas\n%v", args, after, before)
				}
				if args[0] == "show" && !strings.Contains(stdout, "the committed answer") {
					t.Errorf("%v does not show the committed event: %s", args, stdout)
				}
				if args[0] == "search" && !strings.Contains(stdout, "committed answer") {
					t.Errorf("%v does not find the committed event: %s", args, stdout)
				}
				if args[0] == "sql" && strings.Contains(args[1], "events") && !strings.Contains(stdout, "n\n1\n") {
					t.Errorf("%v does not find the committed event: %q", args, stdout)
				}
				if args[0] == "sql" && strings.Contains(args[1], "s0.sessions") && !strings.Contains(stdout, fmt.Sprintf("n\n%d\n", tt.sessions)) {
					t.Errorf("%v: %q, want %d sessions", args, stdout, tt.sessions)
				}
			}
			st, err := store.OpenReadOnly(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if list, err := st.Sessions().List(context.Background(), ""); err != nil || len(list) != tt.sessions {
				t.Errorf("listed %d sessions, %v; want %d", len(list), err, tt.sessions)
			}
		})
	}
}
