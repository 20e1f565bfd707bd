package project

import (
	"os"
	"path/filepath"
	"testing"
)

// TestShareHistory: off by default, on and off per project, kept in the
// configuration folder; a file that is not the settings is an error and
// is left as it is.
func TestShareHistory(t *testing.T) {
	t.Setenv(ConfigDirEnv, t.TempDir())
	if on, err := ShareHistory("/p"); on || err != nil {
		t.Fatalf("ShareHistory() = %v, %v; want off", on, err)
	}
	if err := SetShareHistory("/p", true); err != nil {
		t.Fatal(err)
	}
	if on, _ := ShareHistory("/p"); !on {
		t.Error("/p is off after SetShareHistory(true)")
	}
	if on, _ := ShareHistory("/q"); on {
		t.Error("/q is on: the setting is per project")
	}
	if err := SetShareHistory("/p", false); err != nil {
		t.Fatal(err)
	}
	if on, _ := ShareHistory("/p"); on {
		t.Error("/p is on after SetShareHistory(false)")
	}
	dir, _ := ConfigDir()
	path := filepath.Join(dir, "history.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ShareHistory("/p"); err == nil {
		t.Error("ShareHistory() read a damaged file")
	}
	if err := SetShareHistory("/p", true); err == nil {
		t.Error("SetShareHistory() replaced a damaged file")
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Errorf("the damaged file became %q", b)
	}
}
