package parse

import "github.com/lazuli-app/lazuli/codec"

// InitHold holds a parser's first events until the session's model is
// known: some formats name it only in the first reply, after the prompt,
// and the Init that carries it must come before them.
type InitHold struct {
	held []codec.Event
	done bool
}

// Release passes evs on once the Init is out. Before, it holds them, and
// once model is known emits the Init of cwd and model with everything
// held. What it returns is counted in u (the usage rows' anchors).
func (h *InitHold) Release(u *UsageLog, cwd string, evs []codec.Event, model string) []codec.Event {
	if h.done {
		u.Saw(evs...)
		return evs
	}
	h.held = append(h.held, evs...)
	if model == "" {
		return nil
	}
	return h.Flush(u, cwd, model)
}

// Flush emits the Init of cwd and model ("" when never known) and the
// events held; after it every event passes.
func (h *InitHold) Flush(u *UsageLog, cwd, model string) []codec.Event {
	out := append([]codec.Event{codec.Init(cwd, model)}, h.held...)
	h.held, h.done = nil, true
	u.Saw(out...)
	return out
}

// Pending reports whether events are held for an Init not yet emitted.
func (h *InitHold) Pending() bool { return !h.done && len(h.held) > 0 }

// Held returns the events held until the Init.
func (h *InitHold) Held() []codec.Event { return h.held }

// Peek returns what a Flush of an unknown model would emit now, without
// emitting it: nil when nothing is pending.
func (h *InitHold) Peek(cwd string) []codec.Event {
	if !h.Pending() {
		return nil
	}
	return append([]codec.Event{codec.Init(cwd, "")}, h.held...)
}
