package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestFirstWriteChecksTheFile damages a page in the middle of a store,
// where Open's header and schema checks do not look: the store opens and
// reads, but the first write runs quick_check and refuses, and so does
// every later one, without touching the file.
func TestFirstWriteChecksTheFile(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	mustAppend(t, s, 1, newBenchGen(3).events(400)...)
	s.Close()
	path := s.Path()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := 4096
	mid := len(data) / pageSize / 2 * pageSize
	for i := mid + 8; i < mid+pageSize; i++ {
		data[i] = 0x5a // keeps the page type byte, wrecks its cells
	}
	writeFile(t, path, data)
	damaged := mustOpenPath(t, path)
	var fe *FormatError
	if _, err := damaged.Sessions().List(ctx, ""); err != nil && !errors.As(err, &fe) {
		t.Errorf("ListSessions() error = %v, want a *FormatError", err) // if it reads the page
	}
	for range 2 {
		_, err := damaged.Sessions().Create(ctx, "main", "")
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("CreateSession() error = %v, want a *FormatError about damage", err)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Error("a refused write changed the damaged file")
	}
}

// TestFirstWriteChecksOnce checks that a healthy store is checked before
// its first write only.
func TestFirstWriteChecksOnce(t *testing.T) {
	s := mustOpenPath(t, newStoreFile(t))
	if s.verified {
		t.Fatal("Open ran the full check")
	}
	mustAppend(t, s, 1, codec.UserMessage("x"))
	if !s.verified {
		t.Fatal("the first write did not run the full check")
	}
}
