package app

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The export success dialog offers Open (the file) and Show in folder (its
// folder), through the opener; a failing opener is reported and the
// dialog stays.
func TestExportSuccessOpens(t *testing.T) {
	pw, wt, _ := exportWindow(t, false)
	var opened []string
	fail := false
	opener := func(p string) error {
		if fail {
			return errors.New("no opener")
		}
		opened = append(opened, p)
		return nil
	}
	x := pw.exports.openExport(pw.shown.current)
	pw.wg.Wait() // the scan
	x.open = opener
	path := filepath.Join(wt.Dir, "S1-deploy-to-staging.md")
	tapDialogButton(t, pw.win, "Export")
	pw.wg.Wait()
	if txt := dialogText(pw.win); !strings.Contains(txt, "Saved S1 as Markdown to\n"+path) {
		t.Fatalf("success says %q", txt)
	}
	tapDialogButton(t, pw.win, "Open")
	if !slices.Equal(opened, []string{path}) {
		t.Errorf("Open opened %v, want %s", opened, path)
	}

	x = pw.exports.openExport(pw.shown.current)
	pw.wg.Wait()
	x.open = opener
	tapDialogButton(t, pw.win, "Export")
	tapDialogButton(t, pw.win, "Replace")
	pw.wg.Wait()
	fail = true
	tapDialogButton(t, pw.win, "Show in folder")
	if txt := dialogText(pw.win); !strings.Contains(txt, "no opener") {
		t.Errorf("a failing opener says %q", txt)
	}
	tapDialogButton(t, pw.win, "OK")
	fail = false
	tapDialogButton(t, pw.win, "Show in folder")
	if !slices.Equal(opened, []string{path, wt.Dir}) {
		t.Errorf("Show in folder opened %v, want %s", opened, wt.Dir)
	}
}
