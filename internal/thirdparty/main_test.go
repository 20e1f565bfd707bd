package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// modDir is a module's folder in the module cache.
func modDir(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", path, err)
	}
	return strings.TrimSpace(string(out))
}

// TestClassifyModuleCache names the licences of real licence files of the
// module graph, one of each kind it meets.
func TestClassifyModuleCache(t *testing.T) {
	for _, tt := range []struct {
		module, file, want string
	}{
		{"modernc.org/sqlite", "LICENSE", "BSD-3-Clause"},
		{"github.com/yuin/goldmark", "LICENSE", "MIT"},
		{"github.com/godbus/dbus/v5", "LICENSE", "BSD-2-Clause"},
		{"fyne.io/systray", "LICENSE", "Apache-2.0"},
		{"github.com/nfnt/resize", "LICENSE", "ISC"},
		{"github.com/go-text/render", "LICENSE", "Unlicense OR BSD-3-Clause"},
		{"github.com/modelcontextprotocol/go-sdk", "LICENSE", "Apache-2.0 AND MIT"},
		{"github.com/klauspost/compress", "LICENSE", "Apache-2.0 AND MIT AND BSD-3-Clause"},
		{"github.com/BurntSushi/toml", "COPYING", "MIT"},
	} {
		t.Run(tt.module, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(modDir(t, tt.module), tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := Classify(string(text)); err != nil || got != tt.want {
				t.Errorf("Classify(%s/%s) = %q, %v, want %q", tt.module, tt.file, got, err, tt.want)
			}
		})
	}
}

func TestClassifyUnknown(t *testing.T) {
	if got, err := Classify("All rights reserved. Do not copy."); err == nil {
		t.Errorf("Classify(proprietary text) = %q, want an error", got)
	}
}

// TestHeadlessNotices lists the modules of the headless build (no Fyne, no
// GL) and of the window's, reads their licences and writes the notices.
func TestHeadlessNotices(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module graph")
	}
	t.Setenv("CGO_ENABLED", "0")
	mods, err := Modules("nowindow", "../..")
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, m := range mods {
		paths[m.Path] = true
	}
	for _, want := range []string{"modernc.org/sqlite", "github.com/jackc/pgx/v5", "github.com/yuin/goldmark"} {
		if !paths[want] {
			t.Errorf("the headless build's modules lack %s", want)
		}
	}
	for p := range paths {
		if strings.HasPrefix(p, "fyne.io/") || strings.Contains(p, "go-gl") {
			t.Errorf("the headless build's modules hold %s", p)
		}
	}
	notices, err := Collect(mods)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Write(&b, notices)
	for _, want := range []string{"modernc.org/sqlite", "LICENSE-SQLITE", "SQLite Is Public Domain"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the notices lack %q", want)
		}
	}
}

// TestCollectNoLicence: a module without a licence file is an error that
// names it.
func TestCollectNoLicence(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Collect([]Module{{Path: "example.com/nolicence", Version: "v1.0.0", Dir: dir}})
	if err == nil || !strings.Contains(err.Error(), "example.com/nolicence v1.0.0: no licence file") {
		t.Errorf("Collect(a module without a licence) = %v, want no licence file", err)
	}
}
