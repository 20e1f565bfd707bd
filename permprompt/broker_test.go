package permprompt

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestBroker: the socket's folder is private, a request is answered, a
// handler still waiting when the broker closes sees its context end and
// the asker gets a deny, and Close removes the folder.
func TestBroker(t *testing.T) {
	ctx := context.Background()
	waiting := make(chan struct{})
	b, err := Listen(func(hctx context.Context, req Request) Response {
		if req.ToolName == "Wait" {
			close(waiting)
			<-hctx.Done()
			return Allow(req)
		}
		return Allow(req)
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Dir(b.Socket()))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket folder %v, %v; want mode 0700", fi.Mode(), err)
	}
	r, err := Ask(ctx, b.Socket(), Request{ToolName: "Read", Input: json.RawMessage(`{"file_path":"/a"}`)})
	if err != nil || r.Behavior != "allow" || string(r.UpdatedInput) != `{"file_path":"/a"}` {
		t.Errorf("Ask() = %+v, %v", r, err)
	}
	done := make(chan Response)
	go func() {
		r, _ := Ask(ctx, b.Socket(), Request{ToolName: "Wait"})
		done <- r
	}()
	<-waiting
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.Behavior != "deny" {
		t.Errorf("answer after Close %+v, want deny", r)
	}
	if _, err := os.Stat(filepath.Dir(b.Socket())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket folder left: %v", err)
	}
}
