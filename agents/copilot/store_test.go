package copilot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// capturedStore unpacks the captured session store with its -wal and -shm.
func capturedStore(t testing.TB) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "capture", "session-store.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(h.Name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "session-store.db")
}

func TestReadStore(t *testing.T) {
	path := capturedStore(t)
	var before [][]byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, b)
	}
	ss, err := ReadStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	multi, failed := captured(t)
	ids := map[string]bool{filepath.Base(filepath.Dir(multi)): true, filepath.Base(filepath.Dir(failed)): true}
	if len(ss) != 2 || !ids[ss[0].ID] || !ids[ss[1].ID] {
		t.Fatalf("sessions %+v, want the two logged", ss)
	}
	var m StoreSession
	for _, s := range ss {
		if s.ID == filepath.Base(filepath.Dir(multi)) {
			m = s
		}
		if !strings.HasSuffix(s.Cwd, "/work") || s.Branch != "main" || s.Created.IsZero() {
			t.Errorf("session %+v", s)
		}
	}
	if len(m.Turns) != 1 || m.Turns[0].User != "How many lines does notes.txt have now?" || m.Turns[0].Assistant != "notes.txt has 2 lines." {
		t.Errorf("turns %+v", m.Turns)
	}
	if len(m.Files) != 1 || !strings.HasSuffix(m.Files[0].Path, "/notes.txt") || m.Files[0].Tool != "create" {
		t.Errorf("files %+v", m.Files)
	}
	evs := m.Events()
	if len(evs) != 4 || evs[0].Kind != codec.KindInit || evs[1].Content != m.Turns[0].User || !evs[3].Success {
		t.Errorf("events %+v", evs)
	}
	for i, suffix := range []string{"", "-wal", "-shm"} {
		if after, _ := os.ReadFile(path + suffix); !bytes.Equal(before[i], after) {
			t.Errorf("reading the store changed session-store.db%s", suffix)
		}
	}
	if _, err := ReadStore(context.Background(), filepath.Join(t.TempDir(), "none.db")); err == nil {
		t.Error("a missing store read without error")
	}
}
