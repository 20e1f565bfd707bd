package mcpserve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lazuli-app/lazuli/recall"
)

// ErrNotLoopback refuses a --listen address another machine could reach.
var ErrNotLoopback = errors.New("not a loopback address")

// CheckLoopback returns addr (host:port) when its host is a loopback IP
// or "localhost", and an error wrapping ErrNotLoopback otherwise: the
// history must not be served to the network.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("listen address %q: %w (use 127.0.0.1:PORT)", addr, ErrNotLoopback)
}

// NewToken returns a random bearer token (256 bits, hex).
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Handler is the streamable HTTP handler of h, answering only requests
// that carry "Authorization: Bearer <token>" (401 otherwise), with
// request bodies of at most MaxLine bytes.
func Handler(ctx context.Context, h *recall.History, version, token string) (http.Handler, error) {
	s, err := NewServer(ctx, h, version)
	if err != nil {
		return nil, err
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: MaxLine})
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lazuli"`)
			http.Error(w, "lazuli mcp: a bearer token is required", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}), nil
}

// ServeHTTP serves h over streamable HTTP at addr, a loopback address
// (CheckLoopback), behind token, until ctx ends. ready is called with the
// server's URL once it listens.
func ServeHTTP(ctx context.Context, h *recall.History, version, addr, token string, ready func(url string)) error {
	if err := CheckLoopback(addr); err != nil {
		return err
	}
	handler, err := Handler(ctx, h, version, token)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if ready != nil {
		ready("http://" + ln.Addr().String() + "/")
	}
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx) // best effort: the process is ending
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
