package cli

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// Environment of a repeating child process (see repeatMain).
const (
	repeatEnv   = "LAZULI_CLI_TEST_REPEAT" // the command's arguments, one a line
	repeatTimes = "LAZULI_CLI_TEST_TIMES"
	repeatDir   = "LAZULI_CLI_TEST_DIR"
)

// thirdParty, as the command, makes repeatMain write to the store in
// $LAZULI_CLI_TEST_DIR through SQLite directly, as another program would:
// one session per transaction.
const thirdParty = "third-party-writer"

// repeatMain runs in a child process: it runs the command in
// $LAZULI_CLI_TEST_REPEAT $LAZULI_CLI_TEST_TIMES times in
// $LAZULI_CLI_TEST_DIR ("{i}" in an argument is the run's index) and stops at the first failure, printing its error.
func repeatMain() int {
	args := strings.Split(os.Getenv(repeatEnv), "\n")
	times, _ := strconv.Atoi(os.Getenv(repeatTimes))
	dir := os.Getenv(repeatDir)
	for i := range times {
		if args[0] == thirdParty {
			if err := writeAsThirdParty(filepath.Join(dir, ".azureal", "sessions.azs"), i); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			continue
		}
		var errb bytes.Buffer
		argv := make([]string, len(args))
		for k, a := range args {
			argv[k] = strings.ReplaceAll(a, "{i}", strconv.Itoa(i)) // a name of its own
		}
		if code := Run(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &errb, Dir: dir}, argv); code != 0 {
			fmt.Fprintf(os.Stderr, "run %d of %v: %s", i, args, errb.String())
			return code
		}
	}
	return 0
}

// writeAsThirdParty adds one session to the store at path, waiting for
// the lock as long as SQLite's default busy timeout of 5 s allows.
func writeAsThirdParty(path string, i int) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_txlock=immediate")
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("third-party write %d: %w", i, err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO sessions(worktree, name) VALUES ('main', ?)", fmt.Sprintf("third party %d", i)); err != nil {
		return fmt.Errorf("third-party write %d: %w", i, err)
	}
	return tx.Commit()
}

// TestConcurrentImportsAllSucceed: two processes importing transcripts
// into one store, a third program writing to it and a process listing
// it, all at once, each a fixed number of times: every import and every
// list succeeds (no "store is busy"), and the store holds every session.
func TestConcurrentImportsAllSucceed(t *testing.T) {
	needShared(t)
	const imports, lists, thirdPartyWrites = 12, 20, 40
	dir := t.TempDir()
	transcript, _ := filepath.Abs(filepath.Join(sharedDir, "real-cli", "claude-a-multitool", "stdout.jsonl"))
	if code, _, errOut := run(t, dir, "import", "--name", "first", "--worktree", "main", transcript); code != 0 {
		t.Fatalf("first import: %s", errOut)
	}
	type child struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
	}
	var children []*child
	start := func(times int, args ...string) {
		c := &child{cmd: exec.Command(os.Args[0], "-test.run=^$")}
		c.cmd.Env = append(os.Environ(), repeatEnv+"="+strings.Join(args, "\n"), repeatTimes+"="+strconv.Itoa(times),
			repeatDir+"="+dir)
		c.cmd.Stderr = &c.stderr
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, c)
	}
	// Each import is named apart: the same file imported again under the
	// same name is a duplicate, which stores nothing.
	start(imports, "import", "--worktree", "main", "--name", "a {i}", transcript)
	start(imports, "import", "--worktree", "main", "--name", "b {i}", transcript)
	start(thirdPartyWrites, thirdParty)
	start(lists, "ls")
	for _, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("%v: %v: %s", c.cmd.Env[len(c.cmd.Env)-3], err, c.stderr.String())
		}
	}
	st, err := store.OpenReadOnly(context.Background(), filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if list, err := st.Sessions().List(context.Background(), ""); err != nil || len(list) != 1+2*imports+thirdPartyWrites {
		t.Errorf("the store holds %d sessions, %v; want %d", len(list), err, 1+2*imports+thirdPartyWrites)
	}
}
