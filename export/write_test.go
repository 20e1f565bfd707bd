package export

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.md")
	entries := func() []string {
		des, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		return names
	}
	writeText := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}

	t.Run("ErrorMidway", func(t *testing.T) {
		boom := errors.New("boom")
		err := WriteFile(path, false, func(w io.Writer) error {
			if _, err := io.WriteString(w, strings.Repeat("half written ", 100_000)); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want boom", err)
		}
		if names := entries(); len(names) != 0 {
			t.Errorf("left behind %v", names)
		}
	})
	t.Run("OK", func(t *testing.T) {
		if err := WriteFile(path, false, writeText("first")); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("stat = %v, %v; want mode 0644", fi, err)
		}
		if names := entries(); len(names) != 1 {
			t.Errorf("folder holds %v", names)
		}
	})
	t.Run("ErrExists", func(t *testing.T) {
		err := WriteFile(path, false, writeText("second"))
		if !errors.Is(err, ErrExists) {
			t.Fatalf("err = %v, want ErrExists", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "first" {
			t.Errorf("file = %q, want it unchanged", b)
		}
		if names := entries(); len(names) != 1 {
			t.Errorf("folder holds %v", names)
		}
	})
	t.Run("OverwriteKeepsMode", func(t *testing.T) {
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(path, true, writeText("third")); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(path)
		if b, _ := os.ReadFile(path); string(b) != "third" || fi.Mode().Perm() != 0o600 {
			t.Errorf("file = %q mode %v", b, fi.Mode())
		}
	})
	t.Run("OverwriteErrorKeepsOld", func(t *testing.T) {
		err := WriteFile(path, true, func(w io.Writer) error { return errors.New("cancelled") })
		if err == nil {
			t.Fatal("no error")
		}
		if b, _ := os.ReadFile(path); string(b) != "third" {
			t.Errorf("file = %q, want the old content", b)
		}
	})
	t.Run("Folder", func(t *testing.T) {
		if err := WriteFile(dir, true, writeText("x")); err == nil {
			t.Error("writing over a folder succeeded")
		}
	})
}
