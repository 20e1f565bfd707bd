package permprompt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// askRaw sends line, as is, to the broker at socket and returns the
// answer it reads back.
func askRaw(t *testing.T, socket string, line []byte) (Response, error) {
	t.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	werr := make(chan error, 1)
	go func() {
		_, err := conn.Write(line)
		werr <- err
	}()
	answer, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return Response{}, err
	}
	if err := <-werr; err != nil {
		return Response{}, err
	}
	var r Response
	return r, json.Unmarshal(answer, &r)
}

// TestBrokerBadRequest: a request line longer than MaxRequest, or one
// that is not JSON, is answered with a deny, and the next request is
// still answered.
func TestBrokerBadRequest(t *testing.T) {
	b, err := Listen(func(_ context.Context, req Request) Response { return Allow(req) })
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	huge := append([]byte(`{"tool_name":"Write","input":{"content":"`), bytes.Repeat([]byte("a"), 2<<20)...)
	huge = append(huge, `"}}`+"\n"...)
	tests := []struct {
		name string
		line []byte
		want string
	}{
		{"TooLong", huge, "deny"},
		{"TooLongNotJSON", append(bytes.Repeat([]byte("{"), MaxRequest), '\n'), "deny"},
		{"NotJSON", []byte("{not json\n"), "deny"},
		{"Valid", []byte(`{"tool_name":"Read","input":{}}` + "\n"), "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := askRaw(t, b.Socket(), tt.line)
			if err != nil || r.Behavior != tt.want {
				t.Errorf("answer to %.40q = %s %q, %v; want %s", tt.line, r.Behavior, r.Message, err, tt.want)
			}
			// The broker still serves.
			r, err = Ask(context.Background(), b.Socket(), Request{ToolName: "Read", Input: json.RawMessage(`{}`)})
			if err != nil || r.Behavior != "allow" {
				t.Errorf("next Ask() = %+v, %v; want allow", r, err)
			}
		})
	}
}

// TestRemoveStale: Listen removes the folder a killed run left (its
// process is gone) and keeps those of a live run, of no run named, and
// anything that is not such a folder.
func TestRemoveStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := gone.ProcessState.Pid()
	tests := []struct {
		name    string
		dir     bool
		removed bool
	}{
		{fmt.Sprintf("lazuli-perm-%d-123", deadPID), true, true},
		{fmt.Sprintf("lazuli-perm-%d-123", os.Getpid()), true, false},
		{fmt.Sprintf("lazuli-perm-%d-456", os.Getppid()), true, false},
		{"lazuli-perm-789", true, false},
		{fmt.Sprintf("lazuli-perm-%d-file", deadPID), false, false},
		{fmt.Sprintf("other-%d-123", deadPID), true, false},
	}
	for _, tt := range tests {
		p := filepath.Join(tmp, tt.name)
		if tt.dir {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "s"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Listen(func(_ context.Context, req Request) Response { return Allow(req) })
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if dir := filepath.Dir(b.Socket()); filepath.Dir(dir) != tmp || !strings.HasPrefix(filepath.Base(dir), fmt.Sprintf("lazuli-perm-%d-", os.Getpid())) {
		t.Errorf("socket folder %s, want lazuli-perm-%d-… in %s", dir, os.Getpid(), tmp)
	}
	for _, tt := range tests {
		_, err := os.Lstat(filepath.Join(tmp, tt.name))
		if removed := errors.Is(err, os.ErrNotExist); removed != tt.removed {
			t.Errorf("Listen: %s removed = %v (%v), want %v", tt.name, removed, err, tt.removed)
		}
	}
}
