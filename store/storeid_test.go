package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestStoreID: a store has no team id until one is written; EnsureStoreID
// keeps the first id written, SetStoreID replaces it, a missing file is
// not created, and reading the id writes nothing.
func TestStoreID(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.azs")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.EnsureStoreID(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("EnsureStoreID on a missing file = %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("EnsureStoreID created the file: %v", err)
	}
	if _, err := s.Sessions().Create(ctx, "main", "x"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if id, err := s.StoreID(ctx); err != nil || id != "" {
		t.Fatalf("StoreID of a new store = %q, %v", id, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("StoreID changed the file")
	}
	for _, try := range []string{"first", "second"} {
		if id, err := s.EnsureStoreID(ctx, try); err != nil || id != "first" {
			t.Fatalf("EnsureStoreID(%q) = %q, %v; want first", try, id, err)
		}
	}
	if err := s.SetStoreID(ctx, "third"); err != nil {
		t.Fatal(err)
	}
	if id, err := s.StoreID(ctx); err != nil || id != "third" {
		t.Fatalf("StoreID after SetStoreID = %q, %v", id, err)
	}
}

// TestImportRawKeepsPayloads: ImportRaw copies payloads byte for byte,
// keeps compactions, and finds the copy a duplicate the second time.
func TestImportRawKeepsPayloads(t *testing.T) {
	ctx := context.Background()
	src, err := Open(ctx, filepath.Join(t.TempDir(), "a.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sess, _, err := src.Sessions().CreateWithEvents(ctx, "main", "n", []codec.Event{codec.UserMessage("hi"), codec.AssistantText("hello there")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Compactions().Add(ctx, sess.ID, 1, "sum"); err != nil {
		t.Fatal(err)
	}
	raw := RawSession{}
	raw.Session, _ = src.Sessions().Get(ctx, sess.ID)
	raw.Compactions, _ = src.Compactions().Of(ctx, sess.ID)
	err = src.Scan().Events(ctx, ScanOptions{Raw: true}, func(evs []ScannedEvent) error {
		for _, e := range evs {
			raw.Events = append(raw.Events, RawEvent{Seq: e.Seq, Kind: e.Kind, CharLen: e.CharLen, Data: bytes.Clone(e.Payload)})
		}
		return nil
	})
	if err != nil || len(raw.Events) != 2 || raw.Events[1].CharLen != int64(len("hello there")) {
		t.Fatalf("raw scan %+v, %v", raw.Events, err)
	}
	dst, err := Open(ctx, filepath.Join(t.TempDir(), "b.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	id, dup, err := dst.Transfer().ImportRaw(ctx, raw)
	if err != nil || dup {
		t.Fatalf("ImportRaw = %d, %v, %v", id, dup, err)
	}
	if again, dup, err := dst.Transfer().ImportRaw(ctx, raw); err != nil || !dup || again != id {
		t.Fatalf("second ImportRaw = %d, %v, %v", again, dup, err)
	}
	a, _ := src.Transfer().fingerprint(ctx, raw.Session)
	got, _ := dst.Sessions().Get(ctx, id)
	b, _ := dst.Transfer().fingerprint(ctx, got)
	if a != b || got.Name != "n" {
		t.Fatalf("copy differs: %+v", got)
	}
	c, _ := dst.Transfer().readCopy(ctx, got)
	for i, e := range c.events {
		if !bytes.Equal(e.data, raw.Events[i].Data) {
			t.Fatalf("payload %d not byte for byte", i)
		}
	}
}
