package project

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// TestDefaultPermissions: a project's defaults are kept by key beside
// other projects', removed by the zero value, and a damaged file is an
// error that leaves the file as it was.
func TestDefaultPermissions(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ConfigDirEnv, dir)
	if p, err := DefaultPermissions("/a"); err != nil || !p.IsZero() {
		t.Fatalf("before: %+v, %v", p, err)
	}
	a := store.Permissions{Mode: "ask", Rules: []store.PermissionRule{{Permission: "Bash", Pattern: "git *", Action: "allow", Source: "project"}}}
	if err := SetDefaultPermissions("/a", a); err != nil {
		t.Fatal(err)
	}
	if err := SetDefaultPermissions("/b", store.Permissions{Mode: "plan"}); err != nil {
		t.Fatal(err)
	}
	if p, err := DefaultPermissions("/a"); err != nil || !reflect.DeepEqual(p, a) {
		t.Errorf("DefaultPermissions(/a) = %+v, %v", p, err)
	}
	if err := SetDefaultPermissions("/b", store.Permissions{}); err != nil {
		t.Fatal(err)
	}
	if p, _ := DefaultPermissions("/b"); !p.IsZero() {
		t.Errorf("/b after removal: %+v", p)
	}
	path := filepath.Join(dir, "permissions.json")
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := DefaultPermissions("/a"); err == nil {
		t.Errorf("damaged file read without an error")
	}
	if err := SetDefaultPermissions("/a", a); err == nil {
		t.Errorf("damaged file overwritten")
	}
	if b, _ := os.ReadFile(path); string(b) != "{" {
		t.Errorf("damaged file changed to %q", b)
	}
	if k := Key([]Worktree{{Dir: "/p/wt-b"}, {Dir: "/p/main"}}); k != "/p/main" {
		t.Errorf("Key = %q", k)
	}
}
