//go:build unix

package native

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// irregularEntries makes, in a Claude project folder of projects, one
// entry of each kind that is named like a transcript but is not a regular
// file, and a good transcript. It returns the reason each is skipped for,
// by name.
func irregularEntries(tb testing.TB, projects string) map[string]string {
	tb.Helper()
	claudeFile(tb, projects, "/w/proj", "good", claudeLine1, claudeLine2)
	dir := filepath.Join(projects, EncodeClaudeProject("/w/proj"))
	outside := tb.TempDir()
	locked := filepath.Join(outside, "locked.jsonl")
	writeFile(tb, locked, []byte(claudeLine1+"\n"))
	if err := os.Chmod(locked, 0); err != nil {
		tb.Fatal(err)
	}
	pipe := filepath.Join(outside, "pipe")
	for _, p := range []string{pipe, filepath.Join(dir, "fifo.jsonl")} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	links := map[string]string{
		"zero.jsonl":     "/dev/zero",
		"locked.jsonl":   locked,
		"pipelink.jsonl": pipe,
		"loop.jsonl":     "loop.jsonl",
		"broken.jsonl":   filepath.Join(outside, "missing.jsonl"),
		"folderln.jsonl": outside,
		"relative.jsonl": "good.jsonl",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.jsonl"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return map[string]string{
		"fifo.jsonl":     "not a regular file: a named pipe",
		"zero.jsonl":     "a symbolic link to a device; links are not followed",
		"locked.jsonl":   "a symbolic link to a file; links are not followed",
		"pipelink.jsonl": "a symbolic link to a named pipe; links are not followed",
		"loop.jsonl":     "a symbolic link that loops; links are not followed",
		"broken.jsonl":   "a broken symbolic link (its target does not exist)",
		"folderln.jsonl": "a symbolic link to a folder; links are not followed",
		"relative.jsonl": "a symbolic link to a file; links are not followed",
		"folder.jsonl":   "a folder, not a transcript file",
	}
}

// TestScanNativeIrregularEntries: every entry named like a transcript that
// is not a regular file (a named pipe, links to a device, to an
// unreadable file, to a pipe, to a folder, a loop, a broken link, a
// folder) is skipped with a one-line reason; none is opened, so none
// hangs the scan; the good transcript is found.
func TestScanNativeIrregularEntries(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	want := irregularEntries(t, projects)
	scan := mustScan(t, Options{Dirs: Dirs{Claude: projects}})
	got := map[string]string{}
	for _, s := range scan.Skipped {
		got[filepath.Base(s.Path)] = s.Reason
	}
	for name, reason := range want {
		if got[name] != reason {
			t.Errorf("Scan: %s skipped for %q, want %q", name, got[name], reason)
		}
		if strings.Contains(got[name], "\n") {
			t.Errorf("Scan: %s's reason %q is not one line", name, got[name])
		}
	}
	if len(scan.Skipped) != len(want) {
		t.Errorf("Scan skipped %d entries, want %d: %+v", len(scan.Skipped), len(want), scan.Skipped)
	}
	if len(scan.Sessions) != 1 || scan.Sessions[0].ID != "good" {
		t.Errorf("Scan found %+v, want the good session only", scan.Sessions)
	}
}

// TestOpenRegular: a transcript is opened only when it is a regular file;
// a named pipe (with no writer, an open for reading would block) and a
// symbolic link are refused at once.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.jsonl")
	writeFile(t, file, []byte("{}\n"))
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path string
		ok         bool
	}{
		{"File", file, true},
		{"NamedPipe", fifo, false},
		{"Link", link, false},
		{"Device", "/dev/zero", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := openRegular(tt.path)
			if f != nil {
				f.Close()
			}
			if (err == nil) != tt.ok {
				t.Errorf("openRegular(%q) = %v, want ok %v", tt.path, err, tt.ok)
			}
		})
	}
}

// TestImportNativeSwappedForPipe: a transcript replaced by a named pipe
// after the scan is skipped with a reason when imported, not read (a read
// would wait for a writer forever); the other session is imported.
func TestImportNativeSwappedForPipe(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	a := claudeFile(t, projects, "/w/proj", "a", claudeLine1)
	claudeFile(t, projects, "/w/proj", "b", strings.Replace(claudeLine1, "fix the build", "second", 1))
	sessions := mustScan(t, Options{Dirs: Dirs{Claude: projects}}).Sessions
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(a, 0o644); err != nil {
		t.Fatal(err)
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, sessions, ImportOptions{})
	got := map[string]Result{}
	for _, r := range res {
		got[r.ID] = r
	}
	if got["a"].Outcome != Skipped || !strings.Contains(got["a"].Reason, "not a regular file: a named pipe") || got["b"].Outcome != Imported {
		t.Errorf("results: %+v", res)
	}
	mustCheck(t, st)
}
