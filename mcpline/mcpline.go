// Package mcpline keeps an MCP server on stdio serving through lines it
// cannot read: the official SDK ends the session at the first line that
// is not a JSON-RPC message, and holds a line of any length whole. Filter
// stands between stdin and the SDK, answers such lines itself and passes
// the rest on. It imports none of ours.
package mcpline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// LockedWriter writes whole lines to W, one at a time: the SDK's answers
// and Filter's share stdout.
type LockedWriter struct {
	mu sync.Mutex
	W  io.WriteCloser
}

// Write writes p to W while no other Write runs.
func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}

// Close closes W.
func (l *LockedWriter) Close() error { return l.W.Close() }

// CallResult is what Filter answers for a tools/call it cannot pass on
// (its id readable): the tool's result, built from why the line could not
// be read; nil answers it with a JSON-RPC error like any other line.
type CallResult func(why string) any

// Filter copies to sdk the lines of in that are JSON-RPC messages of at
// most maxLine bytes, and answers every other line itself on out (see
// CallResult): the SDK ends the session at the first line it cannot
// read. A longer line is never held whole. Filter returns nil at the end
// of in.
func Filter(in io.Reader, sdk io.Writer, out io.Writer, maxLine int, result CallResult) error {
	br := bufio.NewReader(in)
	for {
		line, env, err := readLine(br, maxLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		switch {
		case env != nil:
			if werr := answer(out, env, fmt.Sprintf("a line longer than %d bytes", maxLine), result); werr != nil {
				return werr
			}
		case len(bytes.TrimSpace(line)) > 0:
			line = bytes.TrimSpace(line)
			if _, derr := jsonrpc.DecodeMessage(line); derr != nil {
				var e envelope
				e.Write(line)
				if werr := answer(out, &e, derr.Error(), result); werr != nil {
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

// readLine reads one line of at most maxLine bytes. A longer line is read
// to its end without being kept: readLine returns only its envelope.
func readLine(br *bufio.Reader, maxLine int) ([]byte, *envelope, error) {
	var line []byte
	var env *envelope
	for {
		frag, err := br.ReadSlice('\n')
		if env == nil && len(line)+len(frag) > maxLine {
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
// and id could be read) with result's answer, anything else with a
// JSON-RPC error, its id null when it has none that can be read.
func answer(out io.Writer, env *envelope, why string, result CallResult) error {
	id := env.ID()
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *jsonrpc.Error  `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id}
	var res any
	if env.Method() == "tools/call" && string(id) != "null" && result != nil {
		res = result(why)
	}
	switch {
	case res != nil:
		msg.Result = res
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
