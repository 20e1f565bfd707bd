// Package fakemodel is a scripted model server for tests that drive the
// real claude and codex CLIs: it speaks the Anthropic Messages API
// (POST /v1/messages, /v1/messages/count_tokens) and the OpenAI Responses
// API (POST /v1/responses) as server-sent events, refuses proxy CONNECTs
// (recording the host), and records every request.
//
// A conversation follows a Script, one Step per model call. The server
// finds its place in the script from the tool-call ids in the request,
// which encode the step that made them (toolu_fkm_<step>_<n>,
// call_fkm_<step>_<n>), so retries and replays stay consistent. See
// ../shared/formats/real-cli-harness.md for what the CLIs send and accept.
//
// A Server is safe for concurrent use; its methods may be called from any
// goroutine while requests are being served.
package fakemodel

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Server is a running scripted model server.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT, with no slash.
	URL string

	srv    *httptest.Server
	script Script
	routes []Route
	closed chan struct{}

	mu      sync.Mutex
	reqs    []Request
	changed chan struct{} // closed and replaced when reqs grows
	errors  map[errorKey]int
	msgSeq  int
	closing sync.Once
}

// errorKey counts how often an error step was served in one conversation.
type errorKey struct {
	conversation string
	route, step  int
}

// New starts a server on 127.0.0.1 whose conversations follow script,
// except those whose first user text contains the Contains of a route:
// the first such route's script is used. Close it when done.
func New(script Script, routes ...Route) *Server {
	s := &Server{script: script, routes: routes, closed: make(chan struct{}),
		changed: make(chan struct{}), errors: make(map[errorKey]int)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close releases hanging and waiting replies, then stops the server and
// waits for its handlers to return.
func (s *Server) Close() {
	s.closing.Do(func() {
		close(s.closed)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Model returns the model requests (Anthropic, OpenAI, Chat Completions,
// Gemini; not count_tokens or CONNECT) received so far.
func (s *Server) Model() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.API == Anthropic || r.API == OpenAI || r.API == OpenAIChat || r.API == Gemini {
			out = append(out, r)
		}
	}
	return out
}

// Connects returns the hosts of the refused proxy CONNECTs.
func (s *Server) Connects() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.API == Connect {
			out = append(out, r.Path)
		}
	}
	return out
}

// WaitFor blocks until a received request satisfies match and returns it,
// or fails when ctx ends.
func (s *Server) WaitFor(ctx context.Context, match func(Request) bool) (Request, error) {
	seen := 0
	for {
		s.mu.Lock()
		reqs, changed := s.reqs[seen:], s.changed
		seen = len(s.reqs)
		s.mu.Unlock()
		for _, r := range reqs {
			if match(r) {
				return r, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Request{}, fmt.Errorf("wait for a request: %w", ctx.Err())
		}
	}
}

// record appends r (with its Seq set) and wakes WaitFor.
func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, r)
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.record(Request{API: Connect, Method: r.Method, Path: r.Host, Header: r.Header.Clone(),
			Route: -1, Step: -1, Served: ServedOther})
		http.Error(w, "fakemodel: outside traffic blocked", http.StatusForbidden)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw,
		Body: decodeBody(raw), Route: -1, Step: -1, Served: ServedOther}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		req.API = CountTokens
		s.record(req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(raw)/4+1)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		req.API = Anthropic
		req.Conversation = r.Header.Get("X-Claude-Code-Session-Id")
		s.reply(w, r, req, anthropicStream{})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		req.API = OpenAI
		req.Conversation = r.Header.Get("session-id")
		s.reply(w, r, req, openaiStream{})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		req.API = OpenAIChat
		req.Conversation = r.Header.Get("x-session-id")
		s.reply(w, r, req, newChatStream(req.Body))
	case r.Method == http.MethodPost && geminiMethod(r.URL.Path) == "countTokens":
		req.API = CountTokens
		s.record(req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"totalTokens":%d}`, len(raw)/4+1)
	case r.Method == http.MethodPost && (geminiMethod(r.URL.Path) == "streamGenerateContent" || geminiMethod(r.URL.Path) == "generateContent"):
		req.API = Gemini
		if req.Body != nil {
			req.Body["model"] = geminiModelOf(r.URL.Path) // the body has none
		}
		s.reply(w, r, req, geminiStream{streaming: geminiMethod(r.URL.Path) == "streamGenerateContent"})
	default:
		req.API = Unknown
		s.record(req)
		http.Error(w, "fakemodel: no such endpoint", http.StatusNotFound)
	}
}

// stream writes one reply in an API's wire format.
type stream interface {
	// contentType is the reply's Content-Type.
	contentType() string
	// start writes the headers and the opening event of a reply.
	start(w *sseWriter, r reply)
	// finish writes the rest of the reply.
	finish(w *sseWriter, r reply)
	// errorBody is the API's error body for an HTTP status.
	errorBody(status int) string
}

// reply is what a stream needs to write one step.
type reply struct {
	step  Step
	index int    // the step's index, encoded in tool-call ids
	msgID string // unique per reply
	model string
	cwd   string
}

// reply serves the next step of req's conversation.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, req Request, st stream) {
	route, script := s.pick(FirstUserText(req))
	step, index, ok := s.next(req.Conversation, route, script, position(toolIDs(req.Body)))
	step = step.withResults(toolResults(req.Body))
	req.Route, req.Step, req.Served = route, index, servedAs(step, ok)
	model, _ := req.Body["model"].(string)
	rp := reply{step: step, index: index, msgID: s.messageID(), model: model, cwd: workingDir(req.Body)}
	s.record(req)
	if step.Wait != nil && !s.hold(r, step.Wait) {
		return
	}
	if step.Status != 0 {
		body := step.Body
		if body == "" {
			body = st.errorBody(step.Status)
		}
		w.Header().Set("Content-Type", "application/json")
		if ms := step.RetryAfterMS; ms > 0 {
			w.Header().Set("retry-after-ms", strconv.Itoa(ms))
			w.Header().Set("retry-after", strconv.Itoa((ms+999)/1000))
		}
		w.WriteHeader(step.Status)
		_, _ = io.WriteString(w, body) // the client may be gone; nothing to do then
		return
	}
	sw := newSSEWriter(w, st.contentType())
	st.start(sw, rp)
	switch {
	case step.Hang:
		s.hold(r, nil)
	case step.Disconnect:
		panic(http.ErrAbortHandler) // net/http's way to drop the connection
	default:
		st.finish(sw, rp)
	}
}

// servedAs returns the Served value of a step.
func servedAs(step Step, ok bool) string {
	switch {
	case !ok:
		return ServedExhausted
	case step.Status != 0:
		return ServedError
	case step.Hang:
		return ServedHang
	case step.Disconnect:
		return ServedDisconnect
	}
	return ServedReply
}

// hold blocks until release is closed (never, when nil), the client goes
// away or the server closes; it reports whether release was closed.
func (s *Server) hold(r *http.Request, release <-chan struct{}) bool {
	select {
	case <-release:
		return true
	case <-r.Context().Done():
	case <-s.closed:
	}
	return false
}

// pick returns the route (or -1) and script for a conversation.
func (s *Server) pick(firstUserText string) (int, Script) {
	for i, rt := range s.routes {
		if strings.Contains(firstUserText, rt.Contains) {
			return i, rt.Script
		}
	}
	return -1, s.script
}

// next returns the step at position pos of script, skipping error steps
// already served Times times in this conversation; ok is false past the
// end, where the step is a closing text reply.
func (s *Server) next(conversation string, route int, script Script, pos int) (step Step, index int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := pos; i < len(script); i++ {
		st := script[i]
		if st.Status != 0 && st.Times > 0 {
			k := errorKey{conversation, route, i}
			if s.errors[k] >= st.Times {
				continue
			}
			s.errors[k]++
		}
		return st, i, true
	}
	return Step{Text: "(fakemodel: the script has no more steps)"}, len(script), false
}

// messageID returns a new unique message id.
func (s *Server) messageID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgSeq++
	return fmt.Sprintf("fkm_%d", s.msgSeq)
}

// sseWriter writes server-sent events, flushing each.
type sseWriter struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSEWriter(w http.ResponseWriter, contentType string) *sseWriter {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	f, _ := w.(http.Flusher)
	return &sseWriter{w: w, f: f}
}

// event writes one event whose data is data marshalled as JSON.
func (sw *sseWriter) event(typ string, data []byte) {
	fmt.Fprintf(sw.w, "event: %s\ndata: %s\n\n", typ, data)
	if sw.f != nil {
		sw.f.Flush()
	}
}

// data writes one event with data only (no event line), as the Chat
// Completions and Gemini APIs stream.
func (sw *sseWriter) data(data []byte) {
	fmt.Fprintf(sw.w, "data: %s\n\n", data)
	if sw.f != nil {
		sw.f.Flush()
	}
}

// json writes a whole JSON reply (a request that did not ask to stream).
func (sw *sseWriter) json(body []byte) {
	_, _ = sw.w.Write(body) // the client may be gone; nothing to do then
}

// chunks splits s into pieces of at most n bytes on rune boundaries.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i > 0 && !isRuneStart(s[i]) {
			i--
		}
		if i == 0 {
			i = n
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
