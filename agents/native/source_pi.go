package native

import (
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/agents/pi"
)

// Pi is the Pi coding agent's history, as recorded in the store.
const Pi = "pi"

func init() {
	addSource(&Source{Agent: Pi, Title: "Pi", Order: 5, Flag: "pi-dir",
		EnvVar: "PI_CODING_AGENT_DIR", HomeDir: filepath.Join(".pi", "agent"), HistoryDir: "sessions",
		Format: pi.Format,
		preview: func(n *Session, _ string) previewer {
			return &eventsPreview{n: n, format: pi.Format, p: pi.NewParser(parse.Options{}), id: piID}
		},
		feeder: func(opts parse.Options) nativeFeeder { return &eventsFeeder{p: pi.NewParser(opts)} },
	})
}

// piID is the session header's id, else the uuid that ends the file name
// (<ISO time>_<uuid>.jsonl).
func piID(o parse.Object, path string) string {
	if o != nil {
		if o.Str("type") == "session" {
			return o.Str("id")
		}
		return ""
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if _, id, ok := strings.Cut(stem, "_"); ok {
		return id
	}
	return stem
}
