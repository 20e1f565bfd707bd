package app

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestOpenWritesNothing: opening the window on a fresh git repository, by
// a lazuli:// link, --open or a plain PATH, changes nothing in it: no
// .azureal folder, no store, no line in .git/info/exclude.
func TestOpenWritesNothing(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // native history: none
	for _, tt := range []struct {
		name string
		args func(repo string) []string
	}{
		{"URL", func(repo string) []string { return []string{Link(repo, 3, 7)} }},
		{"URLNoSession", func(repo string) []string { return []string{"lazuli://open?path=" + repo} }},
		{"OpenFlag", func(repo string) []string { return []string{"--open", repo, "--session", "1"} }},
		{"Path", func(repo string) []string { return []string{repo} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fa := test.NewTempApp(t)
			repo := t.TempDir()
			if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git init: %v: %s", err, out)
			}
			before := snapshot(t, repo)
			cfg, err := ParseFlags(tt.args(repo), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			wts, _, cleanup, err := projectFor(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			// The window as Run builds it, without the parts that need a
			// display driver's single UI thread (newProjectWindow's
			// backend detection): its list, and the link's session.
			pw := testWindow(t, fa, wts...)
			pw.list.refreshList()
			pw.shown.openLink(cfg.Link)
			pw.wg.Wait()
			st, err := pw.store(wts[0].StorePath)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Sessions().List(context.Background(), ""); err != nil {
				t.Fatal(err)
			}
			pw.close()
			if after := snapshot(t, repo); after != before {
				t.Errorf("opening %q changed the repository:\nbefore:\n%s\nafter:\n%s", tt.args(repo), before, after)
			}
		})
	}
}

// snapshot lists every entry under dir (its .git included) with its mode,
// and each file's content hash, and the exclude file's lines.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v", rel, fi.Mode())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	exclude, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
	return b.String() + "exclude:\n" + string(exclude)
}
