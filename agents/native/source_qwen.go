package native

// Qwen Code's history: ~/.qwen/projects/<cwd dashed>/chats/<session>.jsonl
// ($QWEN_HOME replaces ~/.qwen), every record carrying the session's cwd.
// An agent tool's sub-agent is
// projects/<cwd dashed>/subagents/<parent session>/agent-<agent id>.jsonl,
// its records carrying the parent's sessionId, with a meta file beside it
// (agent-<agent id>.meta.json) that names the call (toolUseId), as
// Claude's do.

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/agents/qwen"
	"github.com/lazuli-app/lazuli/codec"
)

// Qwen is Qwen Code's agent name in the store.
const Qwen = "qwen"

func init() {
	addSource(&Source{Agent: Qwen, Title: "Qwen Code", Order: 3, Flag: "qwen-dir",
		EnvVar: "QWEN_HOME", HomeDir: ".qwen", HistoryDir: "projects",
		Format: qwen.FormatChat,
		isTranscript: func(path string) bool {
			return filepath.Base(filepath.Dir(path)) == "chats" && strings.HasSuffix(path, ".jsonl") || qwenSubagentFile(path)
		},
		preview: func(n *Session, _ string) previewer { return &qwenPreview{n: n, p: qwen.NewChatParser()} },
		feeder:  func(parse.Options) nativeFeeder { return &qwenFeeder{p: qwen.NewChatParser()} },
	})
}

// qwenPreview previews a chat file from its first records.
type qwenPreview struct {
	n     *Session
	p     *qwen.ChatParser
	out   []codec.Event
	typed bool
}

func (q *qwenPreview) line(b []byte) bool {
	q.out = append(q.out, q.p.Feed(b)...)
	if !q.typed {
		evs := append(append([]codec.Event(nil), q.out...), q.p.Held()...)
		q.n.FirstPrompt, q.typed = firstPrompt(evs)
		if q.n.Own == "" && bytes.Contains(b, []byte(codec.ContextOpenTag)) {
			q.n.Own = ownContext
		}
	}
	return q.typed && q.p.SessionID() != ""
}

// qwenSubagentFile reports whether path is a sub-agent's transcript,
// subagents/<parent session>/agent-<agent id>.jsonl.
func qwenSubagentFile(path string) bool {
	base := filepath.Base(path)
	return filepath.Base(filepath.Dir(filepath.Dir(path))) == "subagents" && strings.HasPrefix(base, "agent-") &&
		strings.HasSuffix(base, ".jsonl")
}

func (q *qwenPreview) finish(lines int) error {
	n := q.n
	n.ID, n.Cwd, n.Started = q.p.SessionID(), q.p.Cwd(), q.p.Started()
	if qwenSubagentFile(n.Path) {
		// Its records carry the parent's sessionId: named as Claude's are.
		stem := strings.TrimSuffix(filepath.Base(n.Path), ".jsonl")
		n.ParentID = filepath.Base(filepath.Dir(n.Path))
		n.ID, n.AgentName = n.ParentID+"/"+stem, strings.TrimPrefix(stem, "agent-")
		return nil
	}
	if n.ID == "" {
		if lines > 0 && q.p.Stats().Malformed == lines {
			return errors.New("not a Qwen Code chat")
		}
		n.ID = strings.TrimSuffix(filepath.Base(n.Path), ".jsonl")
	}
	return nil
}

// qwenFeeder: the chat parser emits events as records come, holding only
// the first turn's until the model is known, and ends the open turn at
// the end of the input (Tail).
type qwenFeeder struct {
	p   *qwen.ChatParser
	out []codec.Event
}

func (q *qwenFeeder) feed(line []byte, tooLong bool) {
	if tooLong {
		q.p.SkipLine()
		return
	}
	q.out = append(q.out, q.p.Feed(line)...)
}

func (q *qwenFeeder) mark() int { return len(q.out) + len(q.p.Tail()) }

// freeze: records are only appended, so nothing stored is replaced.
func (q *qwenFeeder) freeze() {}

func (q *qwenFeeder) events() []codec.Event {
	q.out = append(q.out, q.p.Finish()...)
	return q.out
}

func (q *qwenFeeder) stats() parse.Stats { return q.p.Stats() }

func (q *qwenFeeder) usage() []parse.UsageRow { return q.p.Usage() }

// resume: a chat file is read from its start on every import that finds
// it grown.
func (q *qwenFeeder) resume() []byte { return nil }
