package mcpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/lazuli-app/lazuli/permprompt"
)

// MaxLine is the longest line the server reads from claude: the broker's
// limit on a request (permprompt.MaxRequest). A longer line is never held
// whole: it is answered with a deny (a tool call) or an error.
const MaxLine = permprompt.MaxRequest

// lockedWriter writes whole lines to w, one at a time: the SDK's answers
// and filter's share stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// filter copies to sdk the lines of in that are JSON-RPC messages of at
// most MaxLine bytes, and answers every other line itself on out: the SDK
// ends the session at the first line it cannot read. It returns nil at
// the end of in.
func filter(in io.Reader, sdk io.Writer, out io.Writer) error {
	br := bufio.NewReader(in)
	for {
		line, env, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		switch {
		case env != nil:
			if werr := answer(out, env, fmt.Sprintf("a line longer than %d bytes", MaxLine)); werr != nil {
				return werr
			}
		case len(bytes.TrimSpace(line)) > 0:
			line = bytes.TrimSpace(line)
			if _, derr := jsonrpc.DecodeMessage(line); derr != nil {
				var e envelope
				e.Write(line)
				if werr := answer(out, &e, derr.Error()); werr != nil {
					return werr
				}
				break
			}
			if _, werr := sdk.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			return nil
		}
	}
}

// readLine reads one line of at most MaxLine bytes. A longer line is read
// to its end without being kept: readLine returns only its envelope.
func readLine(br *bufio.Reader) ([]byte, *envelope, error) {
	var line []byte
	var env *envelope
	for {
		frag, err := br.ReadSlice('\n')
		if env == nil && len(line)+len(frag) > MaxLine {
			env = new(envelope)
			env.Write(line)
			line = nil
		}
		if env != nil {
			env.Write(frag)
		} else {
			line = append(line, frag...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, env, err
		}
	}
}

// answer answers a line the SDK cannot be given: a tool call (its method
// and id could be read) with a deny, anything else with a JSON-RPC error,
// its id null when it has none that can be read.
func answer(out io.Writer, env *envelope, why string) error {
	id := env.ID()
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *jsonrpc.Error  `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id}
	switch {
	case env.Method() == "tools/call" && string(id) != "null":
		msg.Result = toolResult(permprompt.Deny("Lazuli could not read the permission request: " + why))
	case string(id) != "null":
		msg.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + why}
	default:
		msg.Error = &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: " + why}
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("answer a line it cannot read: %w", err)
	}
	_, err = out.Write(append(data, '\n'))
	return err
}

// maxValue bounds the "id" and "method" values an envelope keeps.
const maxValue = 256

// envelope scans a JSON object as it streams past, in constant memory,
// keeping only the values of its top-level "id" and "method" (when they
// are short scalars): enough to answer a message too long to hold. It
// reads JSON leniently; ID and Method check what it kept.
type envelope struct {
	depth              int
	inString, escaped  bool
	expectKey, inKey   bool
	key                []byte
	capturing          string // "id" or "method" while its value streams past
	value              []byte
	overflow           bool
	id, method         []byte
	seenID, seenMethod bool
}

// Write scans p; it never fails.
func (e *envelope) Write(p []byte) (int, error) {
	for _, c := range p {
		e.scan(c)
	}
	return len(p), nil
}

func (e *envelope) keep(c byte) {
	switch {
	case e.inKey:
		if len(e.key) < 16 {
			e.key = append(e.key, c)
		}
	case e.capturing != "" && e.depth == 1:
		if len(e.value) < maxValue {
			e.value = append(e.value, c)
		} else {
			e.overflow = true
		}
	}
}

func (e *envelope) scan(c byte) {
	if e.inString {
		switch {
		case e.escaped:
			e.escaped = false
		case c == '\\':
			e.escaped = true
		case c == '"':
			e.inString = false
			if e.inKey {
				e.inKey = false
				return
			}
		}
		e.keep(c)
		return
	}
	switch c {
	case '"':
		e.inString = true
		if e.depth == 1 && e.expectKey {
			e.inKey, e.expectKey, e.key = true, false, e.key[:0]
			return
		}
		e.keep(c)
	case '{', '[':
		e.depth++
		if e.depth == 1 {
			e.expectKey = c == '{'
		} else if e.depth == 2 {
			e.capturing = "" // an object or array is no id or method
		}
	case '}', ']':
		if e.depth == 1 {
			e.done()
		}
		e.depth--
	case ':':
		if e.depth == 1 && (string(e.key) == "id" || string(e.key) == "method") {
			e.capturing, e.value, e.overflow = string(e.key), nil, false
		}
	case ',':
		if e.depth == 1 {
			e.done()
			e.expectKey = true
		}
	case ' ', '\t', '\r', '\n':
	default:
		e.keep(c)
	}
}

// done ends the value being captured.
func (e *envelope) done() {
	if !e.overflow {
		switch e.capturing {
		case "id":
			e.id, e.seenID = e.value, true
		case "method":
			e.method, e.seenMethod = e.value, true
		}
	}
	e.capturing, e.value = "", nil
}

// ID is the message's id as JSON: a number or string, or null when it
// has none that is valid.
func (e *envelope) ID() json.RawMessage {
	var v any
	if !e.seenID || json.Unmarshal(e.id, &v) != nil {
		return json.RawMessage("null")
	}
	if _, err := jsonrpc.MakeID(v); err != nil || v == nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(e.id)
}

// Method is the message's method, or "" when it has none that is valid.
func (e *envelope) Method() string {
	var m string
	if !e.seenMethod || json.Unmarshal(e.method, &m) != nil {
		return ""
	}
	return m
}
