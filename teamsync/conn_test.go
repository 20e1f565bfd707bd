package teamsync

import (
	"errors"
	"fmt"
	"net"
	"testing"
)

// TestDescribeClosedSocket: a read on a socket pgx closed after the server
// ended the session reads as a lost connection, which a push says it can
// resume, not as a raw network error.
func TestDescribeClosedSocket(t *testing.T) {
	err := describe(fmt.Errorf("send events: %w", &net.OpError{Op: "read", Net: "unix", Err: net.ErrClosed}))
	if !errors.Is(err, errConnLost) {
		t.Fatalf("describe = %v, want %v", err, errConnLost)
	}
}
