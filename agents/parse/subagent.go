package parse

import (
	"time"

	"github.com/lazuli-app/lazuli/codec"
)

// SubagentEvents are events of one sub-agent, parsed from its parent's
// stream.
type SubagentEvents struct {
	ToolUseID string // the parent's Agent/Task call that started it
	Asked     string // what it was asked: the call's prompt, else its description
	Events    []codec.Event
	// Started is the time of the sub-agent's first line that has one;
	// zero when the stream carries none.
	Started time.Time
}

// SubagentSource is a Parser whose input also carries sub-agents' work
// (Claude's stream-json). TakeSubagents returns the sub-agent events
// parsed since the last call, one entry per sub-agent, in the order the
// sub-agents began.
type SubagentSource interface {
	TakeSubagents() []SubagentEvents
}
