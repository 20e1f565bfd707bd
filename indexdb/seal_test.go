package indexdb

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// sealedFile writes an index-like file whose last change is long past
// (so that its seal is not racy) and seals it.
func sealedFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(path, []byte("index bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !sealAt(t, path, time.Now().Add(-time.Hour)) {
		t.Fatalf("Sealed(%q) = false right after Seal", path)
	}
	return path
}

// sealAt sets the file's time to mtime, seals it and says whether it is
// sealed.
func sealAt(t *testing.T, path string, mtime time.Time) bool {
	t.Helper()
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if err := Seal(path); err != nil {
		t.Fatal(err)
	}
	return Sealed(path)
}

func TestSealedTellsAChange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"bytes appended", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("more")
			f.Close()
		}},
		{"same size, new time", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("INDEX BYTES"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by a copy with the same time", func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			tmp := path + ".new"
			if err := os.WriteFile(tmp, []byte("index bytes"), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"a -wal file beside it", func(t *testing.T, path string) {
			os.WriteFile(path+"-wal", nil, 0o600)
		}},
		{"the seal removed", func(t *testing.T, path string) {
			os.Remove(path + sealSuffix)
		}},
		{"the seal edited", func(t *testing.T, path string) {
			os.WriteFile(path+sealSuffix, []byte("lazuli index seal 1\n"), 0o600)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := sealedFile(t)
			tc.change(t, path)
			if Sealed(path) {
				t.Errorf("Sealed(%q) = true after %s, want false", path, tc.name)
			}
		})
	}
}

// A seal written in the same tick as the file's last change proves
// nothing: a change right after it could keep the time the seal recorded.
// (The file's time is set ahead of the clock, so that the seal is written
// no later than it however fast the machine is.)
func TestSealRacy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(path, []byte("index bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if sealAt(t, path, time.Now().Add(time.Hour)) {
		t.Errorf("Sealed(%q) = true for a seal written with the file, want false (racy)", path)
	}
	// Sealing again later, with the file unchanged, makes it trusted.
	if !sealAt(t, path, time.Now().Add(-time.Hour)) {
		t.Errorf("Sealed(%q) = false after a seal written an hour after the file's change", path)
	}
}

// Seal leaves a file that another process has open (its -wal file is
// there) unsealed, and Remove takes the seal with the file.
func TestSealWithWALAndRemove(t *testing.T) {
	path := sealedFile(t)
	os.Remove(path + sealSuffix)
	if err := os.WriteFile(path+"-wal", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Seal(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + sealSuffix); !os.IsNotExist(err) {
		t.Errorf("Seal wrote a seal beside a -wal file (stat: %v)", err)
	}
	os.Remove(path + "-wal")
	if err := Seal(path); err != nil {
		t.Fatal(err)
	}
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + sealSuffix); !os.IsNotExist(err) {
		t.Errorf("Remove left the seal (stat: %v)", err)
	}
}
