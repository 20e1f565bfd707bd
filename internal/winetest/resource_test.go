package winetest

import (
	"bytes"
	"debug/pe"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"unicode/utf16"
)

// TestResources: both Windows binaries carry the resources
// scripts/windows-resource.sh makes: a .rsrc section with the version of
// FyneApp.toml (Version.Build) and the icon; the window's is a GUI
// program (no console window).
func TestResources(t *testing.T) {
	e := setup(t)
	toml, err := os.ReadFile(filepath.Join(e.src, "FyneApp.toml"))
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`(?m)^Version *= *"([^"]+)"`).FindSubmatch(toml)
	build := regexp.MustCompile(`(?m)^Build *= *(\d+)`).FindSubmatch(toml)
	if version == nil || build == nil {
		t.Fatal("FyneApp.toml has no Version or Build")
	}
	want := utf16le(string(version[1]) + "." + string(build[1]))
	for _, window := range []bool{false, true} {
		exe := e.binary(t, window)
		f, err := pe.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		rsrc := f.Section(".rsrc")
		if rsrc == nil {
			t.Errorf("%s has no .rsrc section", exe)
			f.Close()
			continue
		}
		data, err := rsrc.Data()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, want) {
			t.Errorf("%s: no FileVersion %s.%s in its resources", exe, version[1], build[1])
		}
		if !bytes.Contains(data, []byte("\x89PNG")) && !bytes.Contains(data, []byte{40, 0, 0, 0}) {
			t.Errorf("%s: no icon image in its resources", exe)
		}
		const guiSubsystem = 2 // IMAGE_SUBSYSTEM_WINDOWS_GUI
		if oh, ok := f.OptionalHeader.(*pe.OptionalHeader64); !ok || (oh.Subsystem == guiSubsystem) != window {
			t.Errorf("%s: subsystem %v, want the GUI one only for the window", exe, f.OptionalHeader)
		}
		f.Close()
	}
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}
