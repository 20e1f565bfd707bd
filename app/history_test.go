package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/views"
)

// TestShareHistorySetting: Settings › Agents' history switch is off by
// default and kept per project; when on, the project's runs get the
// history server (this executable's `mcp --project WORKTREE`), another
// project's do not.
func TestShareHistorySetting(t *testing.T) {
	fa := test.NewTempApp(t)
	a, b := t.TempDir(), t.TempDir()
	pw := testWindow(t, fa, Worktree{Dir: a, Branch: "main", StorePath: filepath.Join(a, StoreRelPath)})
	other := testWindow(t, fa, Worktree{Dir: b, Branch: "main", StorePath: filepath.Join(b, StoreRelPath)})
	if s, err := pw.runner.historyServers(a); err != nil || len(s) != 0 {
		t.Fatalf("off by default: %v, %v", s, err)
	}
	pw.runner.SaveAgentSettings(views.AgentSettings{ShareHistory: true})
	s, err := pw.runner.historyServers(a)
	exe, _ := os.Executable()
	if err != nil || len(s) != 1 || s[0].Name != "lazuli" || strings.Join(s[0].Command, " ") != exe+" mcp --project "+a {
		t.Fatalf("on: %+v, %v", s, err)
	}
	if s, _ := other.runner.historyServers(b); len(s) != 0 {
		t.Errorf("another project's runs get %+v", s)
	}
	pw.runner.SaveAgentSettings(views.AgentSettings{ShareHistory: false})
	if s, _ := pw.runner.historyServers(a); len(s) != 0 {
		t.Errorf("off again: %+v", s)
	}
}
