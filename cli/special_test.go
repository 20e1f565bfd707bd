//go:build unix

package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// mkfifo makes a named pipe in a temporary folder.
func mkfifo(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// runGuarded runs a command that used to block forever on a FIFO; it
// fails the test (instead of hanging it) if the command is still blocked
// after a minute, far beyond what refusing takes.
func runGuarded(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := run(t, dir, args...)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errOut
	case <-time.After(time.Minute):
		t.Fatalf("%v is still blocked after a minute", args)
	}
	return 0, "", ""
}

// TestImportFIFO is the probe's reproduction: importing a named pipe
// blocked forever (and ignored Ctrl+C). It is refused at once, and no
// store is created.
func TestImportFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, "transcript.jsonl")
	code, _, errOut := runGuarded(t, dir, "import", fifo)
	if code != ExitError || !strings.Contains(errOut, "named pipe (FIFO): not a regular file") {
		t.Errorf("import FIFO: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".azureal")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("import of a FIFO created a store: %v", err)
	}
}

// TestStoreFIFO: a FIFO named as a store is refused by every command that
// opens one, reading or writing.
func TestStoreFIFO(t *testing.T) {
	needShared(t)
	dir := t.TempDir()
	fifo := mkfifo(t, "sessions.azs")
	transcript, _ := filepath.Abs(filepath.Join(sharedDir, "real-cli", "claude-a-multitool", "stdout.jsonl"))
	for _, args := range [][]string{
		{"ls", "--store", fifo}, {"show", "--store", fifo, "S1"}, {"dump", "--store", fifo},
		{"check", "--store", fifo}, {"search", "--store", fifo, "hello"}, {"export", "--store", fifo, "S1"},
		{"import", "--store", fifo, transcript},
	} {
		code, _, errOut := runGuarded(t, dir, args...)
		if code != ExitError || !strings.Contains(errOut, "not a regular file") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// mknull makes a character device like /dev/null (1, 3) in a temporary
// folder; the test skips where that is not allowed. The real /dev/null is
// never a target: if the fix regressed while the tests run as root, the
// export would replace the machine's /dev/null with a file.
func mknull(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod: %v (needs root)", err)
	}
	return p
}

// TestExportToDevice is the probe's reproduction: `export -o /dev/null
// --force` replaced the device node with a file. A device node, a link to
// one and a FIFO are refused, with or without --force, and left as they
// were.
func TestExportToDevice(t *testing.T) {
	dir := hostileStore(t)
	dev := mknull(t)
	link := filepath.Join(t.TempDir(), "null.md")
	if err := os.Symlink(dev, link); err != nil {
		t.Fatal(err)
	}
	fifo := mkfifo(t, "out.md")
	for _, target := range []string{dev, link, fifo} {
		for _, force := range []bool{false, true} {
			args := []string{"export", "S1", "--allow-secrets", "--format", "md", "-o", target}
			if force {
				args = append(args, "--force")
			}
			code, _, errOut := runGuarded(t, dir, args...)
			if code != ExitError || !strings.Contains(errOut, "not a regular file") {
				t.Errorf("%v: exit %d, %q", args, code, errOut)
			}
		}
	}
	if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device node was replaced: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
	if err := store.CheckRegular(os.DevNull); !errors.Is(err, store.ErrNotRegular) {
		t.Errorf("CheckRegular(%s) = %v", os.DevNull, err)
	}
}
