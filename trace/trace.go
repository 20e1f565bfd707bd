// Package trace writes the window's felt-latency trace points, one line
// each on standard error, when the environment sets LAZULI_TRACE (to
// anything but "" or "0"):
//
//	lazuli-trace UNIX_NANOS POINT DETAIL
//
// POINT is "input" (an input event reached its handler), "ready" (the
// window's content shows its result), "frame" (the first frame painted
// after a ready point: its detail is the ready point's) or "geom" (where
// something is on screen, for a driver that clicks it). DETAIL names the
// action, e.g. "switch S12" or "search". scripts/bench-window.sh reads
// these lines to time each action from its input to its painted frame.
//
// With LAZULI_TRACE unset every function returns at once; nothing is
// formatted.
package trace

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

var (
	on  = enabled(os.Getenv("LAZULI_TRACE"))
	mu  sync.Mutex
	out io.Writer = os.Stderr
)

func enabled(v string) bool { return v != "" && v != "0" }

// On reports whether trace points are written.
func On() bool { return on }

// Mark writes a trace point now.
func Mark(point, detail string) {
	if !on {
		return
	}
	MarkAt(time.Now(), point, detail)
}

// Markf writes a trace point now with a formatted detail.
func Markf(point, format string, args ...any) {
	if !on {
		return
	}
	MarkAt(time.Now(), point, fmt.Sprintf(format, args...))
}

// MarkAt writes a trace point that happened at t.
func MarkAt(t time.Time, point, detail string) {
	if !on {
		return
	}
	line := "lazuli-trace " + strconv.FormatInt(t.UnixNano(), 10) + " " + point + " " + detail + "\n"
	mu.Lock()
	defer mu.Unlock()
	_, _ = io.WriteString(out, line) // a trace that cannot be written is no reason to stop
}

// Line is one parsed trace line.
type Line struct {
	Time   time.Time
	Point  string
	Detail string
}

// Parse reads a trace line; ok is false for any other line.
func Parse(s string) (l Line, ok bool) {
	const prefix = "lazuli-trace "
	if len(s) <= len(prefix) || s[:len(prefix)] != prefix {
		return l, false
	}
	s = s[len(prefix):]
	ns, rest, found := cut(s)
	if !found {
		return l, false
	}
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return l, false
	}
	point, detail, _ := cut(rest)
	if point == "" {
		return l, false
	}
	return Line{Time: time.Unix(0, n), Point: point, Detail: detail}, true
}

func cut(s string) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// setForTest turns tracing on into w; the returned function restores it.
func setForTest(w io.Writer) func() {
	mu.Lock()
	oldOn, oldOut := on, out
	on, out = true, w
	mu.Unlock()
	return func() {
		mu.Lock()
		on, out = oldOn, oldOut
		mu.Unlock()
	}
}
