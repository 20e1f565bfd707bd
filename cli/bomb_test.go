package cli

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// lazuliBinary builds the lazuli command once for the tests that measure a
// whole process: the test binary itself may carry the race detector, which
// multiplies the time and memory of decoding gigabytes.
var lazuliBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "lazuli-cli-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "lazuli")
	goCmd := "go" // from PATH, as `go test` was run
	if root := os.Getenv("GOROOT"); root != "" {
		goCmd = filepath.Join(root, "bin", "go")
	}
	out, err := exec.Command(goCmd, "build", "-buildvcs=false", "-o", bin, "github.com/lazuli-app/lazuli").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build lazuli: %v\n%s", err, out)
	}
	return bin, nil
})

// Environment of launchMain, the measured command's parent process.
const (
	launchEnv    = "LAZULI_CLI_TEST_LAUNCH" // the binary, then its arguments, one a line
	launchDir    = "LAZULI_CLI_TEST_LAUNCH_DIR"
	peakRSSLabel = "peak-rss-kib "
)

// launchMain runs in a child process of the test: it runs the command in
// $LAZULI_CLI_TEST_LAUNCH in $LAZULI_CLI_TEST_LAUNCH_DIR, its output
// discarded but for errors, and prints the command's peak resident memory
// from its rusage. The test cannot read that itself: Linux carries the
// resident high-water mark of the process that starts a command into the
// command's rusage, and the test's own is that of the bomb it built. This
// launcher starts small, so the figure is the command's own (or this
// process's few megabytes, whichever is larger).
func launchMain() int {
	args := strings.Split(os.Getenv(launchEnv), "\n")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = os.Getenv(launchDir)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, launchEnv+"=") || strings.HasPrefix(kv, launchDir+"=")
	})
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 100
	}
	if rss, ok := peakRSS(cmd.ProcessState); ok {
		fmt.Println(peakRSSLabel + strconv.FormatInt(rss, 10))
	}
	return cmd.ProcessState.ExitCode()
}

// removeLazuliBinary deletes what lazuliBinary built, if it built anything.
func removeLazuliBinary() {
	if bin, err := lazuliBinary(); err == nil {
		_ = os.RemoveAll(filepath.Dir(bin)) // a temp folder; nothing to report
	}
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
	sess, _, err := st.Sessions().CreateWithEvents(ctx, "main", "bomb", []codec.Event{
		codec.UserMessage("aaaa bomb"), codec.AssistantText(strings.Repeat("a", 60<<20))})
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
	bin, err := lazuliBinary()
	if err != nil {
		t.Fatal(err)
	}
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
				cmd.Env = append(os.Environ(), launchEnv+"="+strings.Join(append([]string{bin}, args...), "\n"), launchDir+"="+dir, "GOMEMLIMIT=768MiB")
				var errb bytes.Buffer
				cmd.Stderr = &errb
				stdout, err := cmd.Output()
				var peak int64 // KiB
				if v, ok := strings.CutPrefix(strings.TrimSpace(string(stdout)), peakRSSLabel); ok {
					peak, _ = strconv.ParseInt(v, 10, 64)
				}
				msg := strings.Split(strings.TrimSpace(errb.String()), "\n")
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

// TestOneBombEventIsRefusedSmall: a store whose session holds one event of
// a few kilobytes that decodes to 300 MiB (without declaring it): show,
// context, export and dump leave it out, say so, and take no more memory
// than a healthy session does, give or take: well under 128 MiB of peak
// resident memory, where decoding it up to the event limit took 280-350.
func TestOneBombEventIsRefusedSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lazuli binary")
	}
	t.Setenv(store.CacheDirEnv, t.TempDir())
	bin, err := lazuliBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	unreadableStore(t, dir, false)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec("UPDATE events SET data = ? WHERE seq = 2", rleBomb(2400)) // 300 MiB
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"show", "1"}, {"context", "1", "next"}, {"dump"},
		{"export", "1", "--format", "md", "-o", filepath.Join(t.TempDir(), "x.md")}} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), launchEnv+"="+strings.Join(append([]string{bin}, args...), "\n"), launchDir+"="+dir)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		stdout, err := cmd.Output()
		var peak int64 // KiB
		if v, ok := strings.CutPrefix(strings.TrimSpace(string(stdout)), peakRSSLabel); ok {
			peak, _ = strconv.ParseInt(v, 10, 64)
		}
		t.Logf("%v: peak %d MiB, %v: %s", args, peak>>10, err, strings.TrimSpace(errb.String()))
		if err != nil || peak == 0 {
			t.Errorf("%v: exit %v, peak %d KiB", args, err, peak)
		}
		if !strings.Contains(errb.String(), "1 event could not be read") {
			t.Errorf("%v: stderr %q does not say the event could not be read", args, errb.String())
		}
		if peak<<10 >= 128<<20 {
			t.Errorf("%v: peak resident memory %d MiB, want under 128 MiB", args, peak>>10)
		}
	}
}
