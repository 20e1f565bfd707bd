package native

import (
	"strings"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/store"
)

// Summary counts the outcomes of an import.
type Summary struct {
	// Imported counts the new sessions, sub-agents' included;
	// ImportedSubagents those of them that are sub-agents imported with
	// their parent (a list of sessions to import shows them within it).
	Imported          int `json:"imported"`
	ImportedSubagents int `json:"imported_subagents"`
	ImportedEvents    int `json:"imported_events"`
	Appended          int `json:"appended"`
	AppendedEvents    int `json:"appended_events"`
	Unchanged         int `json:"unchanged"`
	Skipped           int `json:"skipped"`
}

// Summarize counts results; unreadable is the number of files the
// scan could not read, counted as skipped. A result is a sub-agent's
// when its parent's is among results (a sub-agent whose parent was not
// found is imported as a session of its own).
func Summarize(results []Result, unreadable int) Summary {
	s := Summary{Skipped: unreadable}
	ids := make(map[store.NativeKey]bool, len(results))
	for _, r := range results {
		ids[store.NativeKey{Agent: r.Agent, ID: r.ID}] = true
	}
	for _, r := range results {
		switch r.Outcome {
		case Imported:
			s.Imported, s.ImportedEvents = s.Imported+1, s.ImportedEvents+r.Events
			if r.ParentID != "" && ids[store.NativeKey{Agent: r.Agent, ID: r.ParentID}] {
				s.ImportedSubagents++
			}
		case Appended:
			s.Appended, s.AppendedEvents = s.Appended+1, s.AppendedEvents+r.Events
		case Unchanged:
			s.Unchanged++
		default:
			s.Skipped++
		}
	}
	return s
}

// String is the summary in one sentence: "Imported 34 new sessions and
// their 4 sub-agents with 1,024 events; appended 0 events to 0 sessions;
// 0 unchanged; 2 skipped."
func (s Summary) String() string {
	var b strings.Builder
	b.WriteString("Imported " + s.NewSessions())
	b.WriteString(" with " + display.Plural(s.ImportedEvents, "event"))
	b.WriteString("; appended " + display.Plural(s.AppendedEvents, "event") + " to " + display.Plural(s.Appended, "session"))
	b.WriteString("; " + display.Count(s.Unchanged) + " unchanged; " + display.Count(s.Skipped) + " skipped.")
	return b.String()
}

// NewSessions says how many sessions were imported, the sub-agents
// imported with their parents apart: "34 new sessions and their 4
// sub-agents", "3 new sessions and 1 sub-agent", "1 new session and its
// sub-agent", "2 new sub-agents".
func (s Summary) NewSessions() string {
	mains, subs := s.Imported-s.ImportedSubagents, s.ImportedSubagents
	switch {
	case subs == 0:
		return display.Plural(mains, "new session")
	case mains == 0:
		return display.Plural(subs, "new sub-agent")
	case mains == 1 && subs == 1:
		return "1 new session and its sub-agent"
	case mains == 1:
		return "1 new session and its " + display.Plural(subs, "sub-agent")
	case subs == 1:
		return display.Plural(mains, "new session") + " and 1 sub-agent"
	default:
		return display.Plural(mains, "new session") + " and their " + display.Plural(subs, "sub-agent")
	}
}
