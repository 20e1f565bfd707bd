// Package permprompt carries an agent's permission prompts from the MCP
// server that claude asks (`lazuli mcp-permissions`, package mcpserve) to
// the Lazuli that runs the agent (the window or `lazuli run`), over a unix
// socket in a private folder (mode 0700) that only that Lazuli listens
// on. One request per connection: a JSON line each way, the request at
// most MaxRequest bytes. It imports nothing of Lazuli's and no GUI.
package permprompt

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// ServerName and ToolName make the tool's name in claude:
// mcp__<server>__<tool>, the value of claude's --permission-prompt-tool.
// The server is not named "lazuli": that is the project's history server
// (`lazuli mcp`), which a run may get in the same --mcp-config.
const (
	ServerName = "lazuli_permissions"
	ToolName   = "permission_prompt"
	PromptTool = "mcp__" + ServerName + "__" + ToolName
)

// Request is what claude asks its permission prompt tool: may tool
// ToolName run with Input?
type Request struct {
	ToolName  string          `json:"tool_name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
}

// Response is the prompt tool's answer, in the shape claude expects of
// the tool's text: {"behavior":"allow","updatedInput":{…}} or
// {"behavior":"deny","message":"…"}.
type Response struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
}

// Allow answers req with "allow", its input unchanged.
func Allow(req Request) Response {
	in := req.Input
	if len(in) == 0 || string(in) == "null" {
		in = json.RawMessage("{}")
	}
	return Response{Behavior: "allow", UpdatedInput: in}
}

// Deny answers with "deny" and why.
func Deny(message string) Response { return Response{Behavior: "deny", Message: message} }

// Handler answers one request. ctx ends when the broker closes or the
// asking side hangs up.
type Handler func(ctx context.Context, req Request) Response

// Broker listens for requests on its socket.
type Broker struct {
	dir    string
	socket string
	ln     net.Listener
	handle Handler
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// SocketEnv names the environment variable that also carries the socket
// to the MCP server (its --socket flag wins).
const SocketEnv = "LAZULI_PERMISSION_SOCKET"

// MaxRequest is the longest request line the broker reads: a longer one
// is answered with a deny, and the broker never holds more than this of it.
const MaxRequest = 1 << 20

// dirPrefix starts the name of a broker's folder in the temporary folder:
// lazuli-perm-<pid>-<random>, pid being the process that listens in it.
const dirPrefix = "lazuli-perm-"

// Listen starts a broker on a new socket in a new private folder. It first
// removes the folders of brokers whose process is gone (a run that was
// killed could not remove its own).
func Listen(handle Handler) (*Broker, error) {
	RemoveStale(os.TempDir())
	dir, err := os.MkdirTemp("", dirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("permission socket: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("permission socket: %w", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("permission socket: %w", err)
	}
	b := &Broker{dir: dir, socket: sock, ln: ln, handle: handle}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.wg.Add(1)
	go b.accept()
	return b, nil
}

// Socket is the path the MCP server connects to.
func (b *Broker) Socket() string { return b.socket }

// Close stops listening, ends the requests in flight (their handlers'
// contexts are cancelled) and removes the folder.
func (b *Broker) Close() error {
	b.cancel()
	err := b.ln.Close()
	b.wg.Wait()
	if rerr := os.RemoveAll(b.dir); err == nil {
		err = rerr
	}
	return err
}

func (b *Broker) accept() {
	defer b.wg.Done()
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.serve(conn)
		}()
	}
}

// RemoveStale removes the broker folders in tmp that are provably left
// over: owned by this user, named for a process that is gone. The folder
// of a live run, another user's, or one whose process cannot be told
// (no pid in its name, or a system without a liveness check) is kept.
func RemoveStale(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return // nothing to clean where nothing can be read
	}
	for _, e := range entries {
		pid, ok := stalePID(e.Name())
		if !ok || !e.IsDir() || pid == os.Getpid() || !ownedByMe(e) || processAlive(pid) {
			continue
		}
		// Best effort: a folder another run removes at the same time is gone anyway.
		_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
}

// stalePID is the pid in a broker folder's name lazuli-perm-<pid>-<random>.
func stalePID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, dirPrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// errTooLong is readLine's answer to a line longer than its limit.
var errTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes, its newline included. A
// longer line is read to its end and discarded, so the asker, still
// writing, gets the answer; readLine then returns errTooLong.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(frag) > max {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, frag...)
		}
		switch {
		case err == nil && tooLong:
			return nil, errTooLong
		case err == nil:
			return line, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
}

// serve answers the one request of conn. The handler's context ends when
// the broker closes or the asker hangs up (claude gave up on the prompt).
func (b *Broker) serve(conn net.Conn) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	var req Request
	line, err := readLine(br, MaxRequest)
	if errors.Is(err, errTooLong) {
		_ = writeLine(conn, Deny(fmt.Sprintf("Lazuli denies a permission request longer than %d bytes", MaxRequest)))
		return
	}
	if err != nil {
		return
	}
	if err := json.Unmarshal(line, &req); err != nil {
		_ = writeLine(conn, Deny("Lazuli could not read the permission request: "+err.Error()))
		return
	}
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	go func() {
		// The asker writes nothing more: a read returns when it hangs up.
		_, _ = br.ReadByte()
		cancel()
	}()
	resp := b.handle(ctx, req)
	if ctx.Err() != nil && b.ctx.Err() != nil {
		resp = Deny("Lazuli stopped before the permission request was answered")
	}
	_ = writeLine(conn, resp)
}

func writeLine(conn net.Conn, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = conn.Write(append(data, '\n'))
	return err
}

// ErrNoAnswer is returned by Ask when Lazuli hung up without an answer.
var ErrNoAnswer = errors.New("lazuli hung up without answering the permission request")

// Ask sends req to the broker at socket and waits for its answer, or for
// ctx to end.
func Ask(ctx context.Context, socket string, req Request) (Response, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return Response{}, fmt.Errorf("reach lazuli at %s: %w", socket, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if err := writeLine(conn, req); err != nil {
		return Response{}, fmt.Errorf("send permission request: %w", err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if ctx.Err() != nil {
		return Response{}, ctx.Err()
	}
	if err != nil {
		return Response{}, fmt.Errorf("%w: %v", ErrNoAnswer, err)
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil {
		return Response{}, fmt.Errorf("read permission answer: %w", err)
	}
	return resp, nil
}
