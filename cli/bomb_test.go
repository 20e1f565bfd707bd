package cli

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// Environment of the measured command (see measuredMain).
const (
	measuredEnv  = "LAZULI_CLI_TEST_MEASURED" // the command's arguments, one a line
	measuredDir  = "LAZULI_CLI_TEST_DIR"
	peakRSSLabel = "peak-rss-kib "
)

// measuredMain runs in a child process: it runs the command in
// $LAZULI_CLI_TEST_MEASURED in $LAZULI_CLI_TEST_DIR, its output discarded
// but for errors, and prints the process's peak resident memory (VmHWM).
func measuredMain() int {
	args := strings.Split(os.Getenv(measuredEnv), "\n")
	var errb bytes.Buffer
	code := Run(context.Background(), &Env{Stdout: io.Discard, Stderr: &errb, Dir: os.Getenv(measuredDir)}, args)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 100
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Println(peakRSSLabel + strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	fmt.Print(errb.String())
	return code
}

// bombStore writes a store whose session 1 holds n events of 60 MiB of
// text each, stored as zstd frames of a few kilobytes.
func bombStore(t *testing.T, dir string, n int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	sess, _, err := st.CreateSessionWithEvents(ctx, "main", "bomb", []store.Event{
		store.UserMessage("aaaa bomb"), store.AssistantText(strings.Repeat("a", 60<<20))})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for k := 1; k < n; k++ {
		if _, err := db.Exec(`INSERT INTO events(session_id, seq, kind, data, char_len)
			SELECT session_id, seq + ?, kind, data, char_len FROM events WHERE session_id = ? AND seq = 2`, k, sess.ID); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// TestBombStoresStayUnderOneGiB: a store whose session holds 2, 10 or 40
// events of 60 MiB decoded each (a 64 KB file) makes no command take 1 GiB
// of memory: each runs in a child process whose peak resident memory is
// measured. Two such events (120 MiB) are within a load's bound
// (store.MaxLoadBytes): every command then does its work; with more, the
// commands that would load the session say so in one line instead, and
// the others (list, search, index, check) do their work.
func TestBombStoresStayUnderOneGiB(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes gigabytes")
	}
	t.Setenv(store.CacheDirEnv, t.TempDir())
	for _, n := range []int{2, 10, 40} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			dir := t.TempDir()
			path := bombStore(t, dir, n)
			if fi, err := os.Stat(path); err != nil || fi.Size() > 1<<20 {
				t.Fatalf("the bomb store: %v, %v", fi, err)
			}
			out := t.TempDir()
			for _, args := range [][]string{
				{"show", "1"}, {"show", "1", "--json"}, {"context", "1", "next"}, {"dump"}, {"ls"},
				{"export", "1", "--format", "md", "-o", filepath.Join(out, "x.md")},
				{"export", "1", "--format", "html", "-o", filepath.Join(out, "x.html")},
				{"export", "1", "--format", "json", "-o", filepath.Join(out, "x.json")},
				{"search", "aaaa"}, {"reindex"}, {"check"},
			} {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), measuredEnv+"="+strings.Join(args, "\n"), measuredDir+"="+dir, "GOMEMLIMIT=768MiB")
				stdout, err := cmd.Output()
				var peak int64
				var msg []string
				sc := bufio.NewScanner(bytes.NewReader(stdout))
				for sc.Scan() {
					if v, ok := strings.CutPrefix(sc.Text(), peakRSSLabel); ok {
						peak, _ = strconv.ParseInt(v, 10, 64)
					} else {
						msg = append(msg, sc.Text())
					}
				}
				t.Logf("%v: peak %d MiB, %v: %s", args, peak>>10, err, strings.Join(msg, " | "))
				if peak == 0 {
					t.Errorf("%v: no peak measured (%v)", args, err)
				}
				loader := map[string]bool{"show": true, "context": true, "dump": true, "export": true}[args[0]]
				if loads := n*60<<20 <= store.MaxLoadBytes || !loader; loads != (err == nil) {
					t.Errorf("%v: exit %v, want success %v", args, err, loads)
				}
				if peak<<10 >= 1<<30 {
					t.Errorf("%v: peak resident memory %d MiB, want under 1 GiB", args, peak>>10)
				}
			}
		})
	}
}
