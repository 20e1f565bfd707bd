// Package agentwork builds the native-history workload of the per-agent
// import benchmarks (Gemini CLI, Qwen Code, OpenCode, Pi, Copilot CLI):
// each real CLI is driven headless against internal/fakemodel through
// sessions scripted from the shared fixtures' real Claude transcripts
// (their prompts, their replies and their tool calls translated to the
// agent's tools, run on a scratch copy of real source code), and what the
// CLI wrote is then copied many times with fresh ids, as internal/nativetree
// does for Claude and Codex. See scripts/bench-agents-import.sh.
package agentwork

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
)

// Action is one tool call of a real transcript in an agent-neutral form.
type Action struct {
	Kind     string // read, write, edit, shell, search or glob
	Text     string // the assistant's text before the call
	Thinking string // its thinking before the call
	Key      string // what the call was about (path, command, pattern): picks the scratch file or command
	Content  string // write: the content; shell: the description
}

// Turn is one prompt of a real transcript and what the model did for it.
type Turn struct {
	Prompt  string
	Actions []Action
	Reply   string // the text after the last call
}

// maxPrompt bounds a prompt, which goes to the CLI as an argument.
const maxPrompt = 8000

// Derive reads a Claude Code transcript and returns its first maxTurns
// turns with a prompt typed by the user, each with at most maxActions
// translatable tool calls (Read, Write, Edit, MultiEdit, Bash, Grep, Glob);
// the other tools (TodoWrite, Task, WebFetch, …) are left out, their text
// kept. Lines that are not JSON are skipped.
func Derive(transcript []byte, maxTurns, maxActions int) []Turn {
	var turns []Turn
	var text, thinking strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(transcript))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l struct {
			Type    string `json:"type"`
			IsMeta  bool   `json:"isMeta"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		switch l.Type {
		case "user":
			if p := promptOf(l.Message.Content); p != "" && !l.IsMeta {
				if len(turns) == maxTurns {
					return turns
				}
				closeTurn(turns, &text)
				thinking.Reset()
				turns = append(turns, Turn{Prompt: p})
			}
		case "assistant":
			if len(turns) == 0 {
				continue
			}
			t := &turns[len(turns)-1]
			var blocks []struct {
				Type     string         `json:"type"`
				Text     string         `json:"text"`
				Thinking string         `json:"thinking"`
				Name     string         `json:"name"`
				Input    map[string]any `json:"input"`
			}
			if json.Unmarshal(l.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				switch b.Type {
				case "text":
					addPara(&text, b.Text)
				case "thinking":
					addPara(&thinking, b.Thinking)
				case "tool_use":
					a, ok := actionOf(b.Name, b.Input)
					if !ok || len(t.Actions) >= maxActions {
						continue
					}
					a.Text, a.Thinking = text.String(), thinking.String()
					text.Reset()
					thinking.Reset()
					t.Actions = append(t.Actions, a)
				}
			}
		}
	}
	closeTurn(turns, &text)
	return turns
}

// closeTurn gives the last turn the text left over as its reply.
func closeTurn(turns []Turn, text *strings.Builder) {
	if len(turns) > 0 {
		turns[len(turns)-1].Reply = text.String()
	}
	text.Reset()
}

func addPara(b *strings.Builder, s string) {
	if s = strings.TrimSpace(s); s == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString(s)
}

// promptOf returns the text a user typed: a string content, or the text
// blocks of a content with no tool result; not a command or a reminder
// ("<…" or "Caveat:").
func promptOf(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) != nil {
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(content, &blocks) != nil {
			return ""
		}
		var b strings.Builder
		for _, bl := range blocks {
			if bl.Type == "tool_result" {
				return ""
			}
			if bl.Type == "text" {
				addPara(&b, bl.Text)
			}
		}
		s = b.String()
	}
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, "<") || strings.HasPrefix(s, "Caveat:") || strings.HasPrefix(s, "[Request interrupted") {
		return ""
	}
	if len(s) > maxPrompt {
		s = strings.ToValidUTF8(s[:maxPrompt], "")
	}
	return s
}

// actionOf translates a Claude tool call.
func actionOf(name string, in map[string]any) (Action, bool) {
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch name {
	case "Read":
		return Action{Kind: "read", Key: str("file_path")}, true
	case "Write":
		return Action{Kind: "write", Key: str("file_path"), Content: str("content")}, true
	case "Edit", "MultiEdit":
		return Action{Kind: "edit", Key: str("file_path")}, true
	case "Bash":
		return Action{Kind: "shell", Key: str("command"), Content: str("description")}, true
	case "Grep":
		return Action{Kind: "search", Key: str("pattern")}, true
	case "Glob":
		return Action{Kind: "glob", Key: str("pattern")}, true
	}
	return Action{}, false
}
