package native

import (
	"path/filepath"

	"github.com/lazuli-app/lazuli/agents/copilot"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// Copilot is GitHub Copilot CLI's history, as recorded in the store.
const Copilot = "copilot"

func init() {
	addSource(&Source{Agent: Copilot, Title: "Copilot CLI", Order: 6, Flag: "copilot-dir",
		EnvVar: "COPILOT_HOME", HomeDir: ".copilot", HistoryDir: "session-state",
		Format:          copilot.Format,
		inFileSubagents: true,
		isTranscript:    func(path string) bool { return filepath.Base(path) == "events.jsonl" },
		preview: func(n *Session, _ string) previewer {
			return &eventsPreview{n: n, format: copilot.Format, p: copilot.NewParser(parse.Options{}), id: copilotID}
		},
		feeder: func(opts parse.Options) nativeFeeder { return &eventsFeeder{p: copilotFeed{copilot.NewParser(opts)}} },
		fill:   fillFromCopilotStore,
	})
}

// copilotID is the session's id: session.start's sessionId, else the
// name of the session's folder (session-state/<id>/events.jsonl).
func copilotID(o parse.Object, path string) string {
	if o != nil {
		if o.Str("type") == "session.start" {
			return o.Obj("data").Str("sessionId")
		}
		return ""
	}
	return filepath.Base(filepath.Dir(path))
}

// copilotFeed is the Copilot parser as a streamParser: it releases nothing
// at Finish.
type copilotFeed struct{ *copilot.Parser }

func (copilotFeed) Unreleased() int { return 0 }
