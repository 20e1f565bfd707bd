package native

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/agents/opencode"
)

// TestMirrorSessions: sessions mirrored a few at a time are each the
// file of its settled lines; the first failure is returned and ends the
// rest; a canceled context stops it.
func TestMirrorSessions(t *testing.T) {
	ctx := context.Background()
	db, err := opencode.OpenDB(ctx, filepath.Join(unpackOpenCode(t), "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, err := db.Sessions(ctx)
	if err != nil || len(sessions) < 3 {
		t.Fatalf("%d sessions (%v), want at least 3", len(sessions), err)
	}
	// Each session several times over, so that both workers take some.
	var todo []opencode.Session
	for range 4 {
		todo = append(todo, sessions...)
	}
	out := t.TempDir()
	if err := mirrorSessions(ctx, db, out, todo); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		lines, err := db.Lines(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		for _, l := range settled(lines) {
			want.Write(l)
			want.WriteByte('\n')
		}
		if got, err := os.ReadFile(filepath.Join(out, s.ID+".jsonl")); err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: mirror %d bytes (%v), want %d", s.ID, len(got), err, want.Len())
		}
	}

	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := mirrorSessions(ctx, db, notDir, todo); err == nil {
		t.Error("mirrored into a file")
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := mirrorSessions(canceled, db, t.TempDir(), todo); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}
