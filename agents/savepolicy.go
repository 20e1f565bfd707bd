package agents

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/codec"
)

// SavePolicy says when RunTurn writes what the agent printed: how many
// write transactions a turn costs, and what a crash (Lazuli killed
// mid-turn) loses. Once the turn has ended, the session holds the same
// events whatever the policy.
type SavePolicy string

// The save policies.
const (
	// SaveChunk writes what arrived at most SaveOptions.Buffer apart, and
	// at once when SaveOptions.BufferSize events wait: a crash loses at
	// most the last buffer.
	SaveChunk SavePolicy = "chunk"
	// SaveStep writes at the end of each model step: a tool call's result,
	// a reply's text, the turn's result (the parent's or a sub-agent's). A
	// crash loses the step in flight.
	SaveStep SavePolicy = "step"
	// SaveTurn writes the whole turn, the user's prompt with it, in one
	// transaction at its end: a crash loses the turn in flight.
	SaveTurn SavePolicy = "turn"
)

// SavePolicies lists the policies, the default first.
var SavePolicies = []SavePolicy{SaveChunk, SaveStep, SaveTurn}

// ErrSavePolicy reports a save policy or buffer that does not exist.
var ErrSavePolicy = errors.New("unknown save policy")

// ParseSavePolicy reads a policy's name; "" is SaveChunk.
func ParseSavePolicy(s string) (SavePolicy, error) {
	p := SavePolicy(strings.ToLower(strings.TrimSpace(s)))
	if p == "" {
		return SaveChunk, nil
	}
	for _, known := range SavePolicies {
		if p == known {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w %q (want chunk, step or turn)", ErrSavePolicy, s)
}

// SaveOptions say when a turn's events are written.
type SaveOptions struct {
	Policy SavePolicy // "" means SaveChunk
	// Buffer is, for SaveChunk, the longest time parsed events wait before
	// they are written; 0 means DefaultFlushInterval.
	Buffer time.Duration
	// BufferSize is, for SaveChunk, the number of waiting events (the
	// parent's and its sub-agents') that are written at once without
	// waiting for Buffer; 0 means no such limit.
	BufferSize int
}

// Validate reports options that cannot be used: an unknown policy or a
// negative buffer.
func (o SaveOptions) Validate() error {
	if _, err := ParseSavePolicy(string(o.Policy)); err != nil {
		return err
	}
	if o.Buffer < 0 || o.BufferSize < 0 {
		return fmt.Errorf("%w: a negative buffer (%s, %d events)", ErrSavePolicy, o.Buffer, o.BufferSize)
	}
	return nil
}

// policy is o.Policy with the default applied.
func (o SaveOptions) policy() SavePolicy {
	if o.Policy == "" {
		return SaveChunk
	}
	return o.Policy
}

// interval is o.Buffer with the default applied.
func (o SaveOptions) interval() time.Duration {
	if o.Buffer <= 0 {
		return DefaultFlushInterval
	}
	return o.Buffer
}

// endsStep reports an event that ends a model step: a tool call's result,
// a reply's text (or plan), or the turn's result.
func endsStep(e codec.Event) bool {
	switch e.Kind {
	case codec.KindToolResult, codec.KindAssistantText, codec.KindPlan, codec.KindComplete:
		return true
	}
	return false
}

// anyEndsStep reports whether events hold the end of a step.
func anyEndsStep(events []codec.Event) bool {
	for _, e := range events {
		if endsStep(e) {
			return true
		}
	}
	return false
}
