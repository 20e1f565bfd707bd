package clicapture

import (
	"path/filepath"

	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

func specs() []agentSpec {
	return []agentSpec{openCodeSpec(), piSpec(), copilotSpec()}
}

func notes(dir string) string { return filepath.Join(dir, "notes.txt") }

func openCodeSpec() agentSpec {
	return agentSpec{
		name: "opencode",
		tools: agentTools{
			write: func(d string) fakemodel.ToolCall {
				return fakemodel.Call("write", map[string]any{"filePath": notes(d), "content": "alpha\nbeta\n"})
			},
			read: func(d string) fakemodel.ToolCall { return fakemodel.Call("read", map[string]any{"filePath": notes(d)}) },
			edit: func(d string) fakemodel.ToolCall {
				return fakemodel.Call("edit", map[string]any{"filePath": notes(d), "oldString": "beta", "newString": "gamma"})
			},
			shell: func(string) fakemodel.ToolCall {
				return fakemodel.Call("bash", map[string]any{"command": "cat notes.txt", "description": "Show notes.txt"})
			},
			search: func(string) fakemodel.ToolCall {
				return fakemodel.Call("grep", map[string]any{"pattern": "gamma"})
			},
			task: func(string) fakemodel.ToolCall {
				return fakemodel.Call("task", map[string]any{"description": "Count lines", "prompt": promptTask, "subagent_type": "general"})
			},
		},
		home: openCodeHome,
		args: func(prompt string, cont bool) []string {
			a := []string{"run", "--format", "json", "--auto"}
			if cont {
				a = append(a, "--continue")
			}
			return append(a, prompt)
		},
		keep: func(home, out string) error {
			return tarFiles(filepath.Join(home, ".local", "share", "opencode"), filepath.Join(out, "opencode-db.tar.gz"),
				"opencode.db", "opencode.db-wal", "opencode.db-shm")
		},
	}
}

func piSpec() agentSpec {
	return agentSpec{
		name: "pi",
		tools: agentTools{
			write: func(d string) fakemodel.ToolCall {
				return fakemodel.Call("write", map[string]any{"path": notes(d), "content": "alpha\nbeta\n"})
			},
			read: func(d string) fakemodel.ToolCall { return fakemodel.Call("read", map[string]any{"path": notes(d)}) },
			edit: func(d string) fakemodel.ToolCall {
				return fakemodel.Call("edit", map[string]any{"path": notes(d),
					"edits": []any{map[string]any{"oldText": "beta", "newText": "gamma"}}})
			},
			shell: func(string) fakemodel.ToolCall {
				return fakemodel.Call("bash", map[string]any{"command": "cat notes.txt"})
			},
			search: func(string) fakemodel.ToolCall { return fakemodel.Call("grep", map[string]any{"pattern": "gamma"}) },
		},
		home: piHome,
		args: func(prompt string, cont bool) []string {
			a := []string{"--provider", "fake", "--model", "claude-sonnet-4-5", "--mode", "json",
				"--tools", "read,bash,edit,write,grep,find,ls"}
			if cont {
				a = append(a, "--continue")
			}
			return append(a, "-p", prompt)
		},
		keep: func(home, out string) error {
			return copyGlob(filepath.Join(home, ".pi", "agent"), out, "sessions/*/*.jsonl")
		},
	}
}

func copilotSpec() agentSpec {
	return agentSpec{
		name: "copilot",
		tools: agentTools{
			write: func(d string) fakemodel.ToolCall {
				return fakemodel.Call("create", map[string]any{"path": notes(d), "file_text": "alpha\nbeta\n"})
			},
			read: func(d string) fakemodel.ToolCall { return fakemodel.Call("view", map[string]any{"path": notes(d)}) },
			edit: func(d string) fakemodel.ToolCall {
				return fakemodel.Call("edit", map[string]any{"path": notes(d), "old_str": "beta", "new_str": "gamma"})
			},
			shell: func(string) fakemodel.ToolCall {
				return fakemodel.Call("bash", map[string]any{"command": "cat notes.txt", "description": "Show notes.txt"})
			},
			search: func(string) fakemodel.ToolCall { return fakemodel.Call("grep", map[string]any{"pattern": "gamma"}) },
			task: func(string) fakemodel.ToolCall {
				return fakemodel.Call("task", map[string]any{"name": "counter", "description": "Count lines",
					"prompt": promptTask, "agent_type": "general-purpose", "mode": "sync"})
			},
		},
		home: copilotHome,
		args: func(prompt string, cont bool) []string {
			a := []string{"--allow-all-tools", "--output-format", "json", "--disable-client-telemetry"}
			if cont {
				a = append(a, "--continue")
			}
			return append(a, "-p", prompt)
		},
		keep: func(home, out string) error {
			c := filepath.Join(home, ".copilot")
			if err := copyGlob(c, out, "session-state/*/events.jsonl"); err != nil {
				return err
			}
			if err := copyGlob(c, out, "session-state/*/workspace.yaml"); err != nil {
				return err
			}
			return tarFiles(c, filepath.Join(out, "session-store.tar.gz"), "session-store.db", "session-store.db-wal", "session-store.db-shm")
		},
	}
}
