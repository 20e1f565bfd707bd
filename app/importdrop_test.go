package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// A dropped transcript is named after its first prompt and dated when it
// ran, as import-native does; dropping the same file again stores nothing
// and says so.
func TestDropTranscriptNamesAndDetectsDuplicate(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	file := filepath.Join(fixtures.Dir(t, "transcripts"), "B_claude-code-log_256ba646-2c15-437a-98e9-4171aafd030e.jsonl")
	fa := test.NewTempApp(t)
	fa.Settings().SetTheme(theme.DefaultTheme()) // the imported session is shown: see TestImportSelectsImported
	dir := t.TempDir()
	wt := Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)}
	pw := testWindow(t, fa, wt)
	defer pw.close()

	pw.imports.onDropped([]fyne.URI{storage.NewFileURI(file)})
	pw.wg.Wait()
	if got := dialogText(pw.win); !strings.Contains(got, ": S1 Search if claude -p") {
		t.Errorf("first drop says %q", got)
	}
	pw.imports.onDropped([]fyne.URI{storage.NewFileURI(file)})
	pw.wg.Wait()
	if got := dialogText(pw.win); !strings.Contains(got, "already imported as S1") || !strings.Contains(got, "nothing added") {
		t.Errorf("second drop says %q", got)
	}
	list := listReadOnly(t, wt.StorePath)
	if len(list) != 1 || list[0].Created != "2026-01-23 17:19:55" || !strings.HasPrefix(list[0].Name, "Search if claude -p") {
		t.Errorf("sessions after two drops: %+v", list)
	}
}

// listReadOnly lists the sessions of the store at path, opened read-only.
func listReadOnly(t *testing.T, path string) []store.Session {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.Sessions().List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// A transcript dropped (or imported with Import… / Ctrl+I) is shown and
// selected once imported; importing it again selects the session that
// already holds it.
func TestImportSelectsImported(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	file := filepath.Join(fixtures.Dir(t, "transcripts"), "B_claude-code-log_256ba646-2c15-437a-98e9-4171aafd030e.jsonl")
	fa := test.NewTempApp(t)
	fa.Settings().SetTheme(theme.DefaultTheme()) // the test theme has no bold monospace font, which the transcript uses
	dir := t.TempDir()
	wt := Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	renderAll(pw)
	want := views.SessionRef{StorePath: wt.StorePath, ID: 1}
	for _, round := range []string{"import", "import again"} {
		pw.shown.NewSession(wt.StorePath, "main") // something else shown first
		pw.imports.importTranscripts([]string{file})
		pw.wg.Wait()
		if got := pw.shown.ref(); got != want {
			t.Errorf("%s: shown %v, want the imported %v", round, got, want)
		}
		if got, ok := pw.mv.Sidebar().Selected(); !ok || got != want {
			t.Errorf("%s: sidebar selects %v (%v), want %v", round, got, ok, want)
		}
	}
}
