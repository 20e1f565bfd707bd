package native

// Gemini CLI's history: ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl,
// with the project's folder in ~/.gemini/tmp/<project>/.project_root
// ($GEMINI_CLI_HOME replaces the home folder). A sub-agent's conversation
// (invoke_agent) is chats/<parent session id>/<agent id>.jsonl, and the
// parent's invoke_agent call records its agentId.

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/agents/gemini"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// Gemini is Gemini CLI's agent name in the store.
const Gemini = "gemini"

func init() {
	addSource(&Source{Agent: Gemini, Title: "Gemini CLI", Order: 2, Flag: "gemini-dir",
		EnvVar: "GEMINI_CLI_HOME", EnvIsHome: true, HomeDir: ".gemini", HistoryDir: "tmp",
		Format: gemini.FormatChat,
		isTranscript: func(path string) bool {
			return filepath.Base(filepath.Dir(path)) == "chats" && strings.HasPrefix(filepath.Base(path), "session-") &&
				strings.HasSuffix(path, ".jsonl") || geminiSubagentFile(path)
		},
		preview: func(n *Session, _ string) previewer { return &geminiPreview{n: n, p: gemini.NewChatParser()} },
		feeder:  func(parse.Options) nativeFeeder { return &geminiFeeder{p: gemini.NewChatParser()} },
	})
}

// geminiPreview previews a chat file from its header and first prompt.
type geminiPreview struct {
	n     *Session
	p     *gemini.ChatParser
	out   []codec.Event
	typed bool
}

func (g *geminiPreview) line(b []byte) bool {
	g.out = append(g.out, g.p.Feed(b)...)
	if !g.typed {
		evs := append(append([]codec.Event(nil), g.out...), g.p.Held()...)
		g.n.FirstPrompt, g.typed = firstPrompt(evs)
		if g.n.Own == "" && bytes.Contains(b, []byte(codec.ContextOpenTag)) {
			for _, e := range evs {
				if e.Kind == codec.KindUserMessage && strings.Contains(e.Content, codec.ContextOpenTag) {
					g.n.Own = ownContext
				}
			}
		}
	}
	return g.typed && g.p.SessionID() != "" && g.p.Cwd() != ""
}

// geminiSubagentFile reports whether path is a sub-agent's chat file,
// chats/<parent session id>/<agent id>.jsonl.
func geminiSubagentFile(path string) bool {
	return filepath.Base(filepath.Dir(filepath.Dir(path))) == "chats" && strings.HasSuffix(path, ".jsonl")
}

func (g *geminiPreview) finish(lines int) error {
	n := g.n
	n.ID, n.Cwd, n.Started = g.p.SessionID(), g.p.Cwd(), g.p.Started()
	project := filepath.Dir(filepath.Dir(n.Path)) // ~/.gemini/tmp/<project>
	if geminiSubagentFile(n.Path) {
		n.ParentID, n.AgentName = filepath.Base(filepath.Dir(n.Path)), n.ID
		project = filepath.Dir(project)
	}
	if n.ID == "" {
		if lines > 0 {
			return errors.New("not a Gemini CLI chat (no session header)")
		}
		n.ID = strings.TrimSuffix(filepath.Base(n.Path), ".jsonl")
	}
	if n.Cwd == "" {
		// The project's folder, as Gemini records it beside its chats.
		if b, err := os.ReadFile(filepath.Join(project, ".project_root")); err == nil {
			n.Cwd = strings.TrimSpace(string(b))
		}
	}
	return nil
}

// geminiFeeder: the chat parser emits events as records come, holding
// only the first turn's until the model is known, and ends the open turn
// at the end of the input (Tail).
type geminiFeeder struct {
	p   *gemini.ChatParser
	out []codec.Event
}

func (g *geminiFeeder) feed(line []byte, tooLong bool) {
	if tooLong {
		g.p.SkipLine()
		return
	}
	g.out = append(g.out, g.p.Feed(line)...)
}

func (g *geminiFeeder) mark() int { return len(g.out) + len(g.p.Tail()) }

// freeze: a record seen again only adds to what it emitted, and a roll
// back keeps what was emitted, so nothing stored is replaced.
func (g *geminiFeeder) freeze() {}

func (g *geminiFeeder) events() []codec.Event {
	g.out = append(g.out, g.p.Finish()...)
	return g.out
}

func (g *geminiFeeder) stats() parse.Stats { return g.p.Stats() }

func (g *geminiFeeder) usage() []parse.UsageRow { return g.p.Usage() }

// resume: a chat file is read from its start on every import that finds
// it grown.
func (g *geminiFeeder) resume() []byte { return nil }
