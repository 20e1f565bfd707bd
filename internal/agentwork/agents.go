package agentwork

import (
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

// Agent is how one CLI is driven and where it keeps its history.
type Agent struct {
	Name string
	// Flag is import-native's flag for its history folder.
	Flag string
	// History is that folder below HOME.
	History string
	// tool puts a call in the CLI's words.
	tool func(c Call) fakemodel.ToolCall
	// env prepares HOME for the server and returns the CLI's environment.
	env func(srv *fakemodel.Server, home string) ([]string, error)
	// args returns the CLI's headless arguments for a prompt, continuing
	// its last session when cont.
	args func(prompt string, cont bool) []string
}

// Agents are the five CLIs, by name, and Claude Code: driven through the
// same scripted sessions, it writes the same work in its own format, the
// reference an agent's import speed is compared with on equal work.
var Agents = map[string]*Agent{
	"claude": {Name: "claude", Flag: "claude-dir", History: ".claude/projects",
		tool: func(c Call) fakemodel.ToolCall {
			return named(c, names{"Read", "Write", "Edit", "Bash", "Grep", "Glob"},
				keys{path: "file_path", content: "content", old: "old_string", new: "new_string"}, nil)
		},
		env: func(srv *fakemodel.Server, home string) ([]string, error) { return srv.Env(home), nil },
		args: func(prompt string, cont bool) []string {
			a := []string{"--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}
			if cont {
				a = append(a, "--continue")
			}
			return append(a, "-p", argPrompt(prompt))
		}},
	"gemini": {Name: "gemini", Flag: "gemini-dir", History: ".gemini/tmp",
		tool: func(c Call) fakemodel.ToolCall {
			return named(c, names{"read_file", "write_file", "replace", "run_shell_command", "grep_search", "glob"},
				keys{path: "file_path", content: "content", old: "old_string", new: "new_string"},
				map[string]any{"instruction": "Apply the change."})
		},
		env: func(srv *fakemodel.Server, home string) ([]string, error) {
			extra, err := fakemodel.GeminiEnv(srv, home)
			return append(srv.Env(home), extra...), err
		},
		args: func(prompt string, cont bool) []string {
			a := []string{"--prompt=" + prompt, "--output-format", "stream-json", "--yolo", "--model", "gemini-2.5-pro"}
			if cont {
				a = append(a, "--resume", "latest")
			}
			return a
		}},
	"qwen": {Name: "qwen", Flag: "qwen-dir", History: ".qwen/projects",
		tool: func(c Call) fakemodel.ToolCall {
			return named(c, names{"read_file", "write_file", "edit", "run_shell_command", "grep_search", "glob"},
				keys{path: "file_path", content: "content", old: "old_string", new: "new_string"}, nil)
		},
		env: func(srv *fakemodel.Server, home string) ([]string, error) {
			extra, err := fakemodel.QwenEnv(srv, home)
			return append(srv.Env(home), extra...), err
		},
		args: func(prompt string, cont bool) []string {
			a := []string{"--output-format", "stream-json", "--approval-mode", "yolo"}
			if cont {
				a = append(a, "--continue")
			}
			return append(a, argPrompt(prompt))
		}},
	"opencode": {Name: "opencode", Flag: "opencode-dir", History: ".local/share/opencode",
		tool: func(c Call) fakemodel.ToolCall {
			return named(c, names{"read", "write", "edit", "bash", "grep", "glob"},
				keys{path: "filePath", content: "content", old: "oldString", new: "newString"}, nil)
		},
		env: agentsEnv,
		args: func(prompt string, cont bool) []string {
			a := []string{"run", "--format", "json", "--auto"}
			if cont {
				a = append(a, "--continue")
			}
			return append(a, argPrompt(prompt))
		}},
	"pi": {Name: "pi", Flag: "pi-dir", History: ".pi/agent/sessions",
		tool: func(c Call) fakemodel.ToolCall {
			if c.Kind == "edit" {
				return fakemodel.Call("edit", map[string]any{"path": c.Path,
					"edits": []any{map[string]any{"oldText": c.Old, "newText": c.New}}})
			}
			if c.Kind == "shell" {
				return fakemodel.Call("bash", map[string]any{"command": c.Command})
			}
			return named(c, names{"read", "write", "edit", "bash", "grep", "find"},
				keys{path: "path", content: "content"}, nil)
		},
		env: agentsEnv,
		args: func(prompt string, cont bool) []string {
			a := []string{"--provider", "fake", "--model", fakemodel.FakeAgentModel, "--mode", "json",
				"--tools", "read,bash,edit,write,grep,find,ls"}
			if cont {
				a = append(a, "--continue")
			}
			return append(a, "-p", argPrompt(prompt))
		}},
	"copilot": {Name: "copilot", Flag: "copilot-dir", History: ".copilot/session-state",
		tool: func(c Call) fakemodel.ToolCall {
			return named(c, names{"view", "create", "edit", "bash", "grep", "glob"},
				keys{path: "path", content: "file_text", old: "old_str", new: "new_str"}, nil)
		},
		env: agentsEnv,
		args: func(prompt string, cont bool) []string {
			a := []string{"--allow-all-tools", "--output-format", "json", "--disable-client-telemetry"}
			if cont {
				a = append(a, "--continue")
			}
			return append(a, "-p", argPrompt(prompt))
		}},
}

// agentsEnv is OpenCode's, Pi's and Copilot's environment (as the
// end-to-end tests run them).
func agentsEnv(srv *fakemodel.Server, home string) ([]string, error) {
	extra, err := srv.AgentsHome(home)
	return append(srv.Env(home), extra...), err
}

// argPrompt keeps a prompt from being read as an option.
func argPrompt(p string) string {
	if strings.HasPrefix(p, "-") {
		return " " + p
	}
	return p
}

// names are a CLI's tools for read, write, edit, shell, search, glob.
type names struct{ read, write, edit, shell, search, glob string }

// keys are the input names of a CLI's file tools.
type keys struct{ path, content, old, new string }

// named puts c in the words of a CLI with these tool and input names;
// more is added to an edit's input.
func named(c Call, n names, k keys, more map[string]any) fakemodel.ToolCall {
	switch c.Kind {
	case "read":
		return fakemodel.Call(n.read, map[string]any{k.path: c.Path})
	case "write":
		return fakemodel.Call(n.write, map[string]any{k.path: c.Path, k.content: c.Content})
	case "edit":
		in := map[string]any{k.path: c.Path, k.old: c.Old, k.new: c.New}
		for key, v := range more {
			in[key] = v
		}
		return fakemodel.Call(n.edit, in)
	case "shell":
		return fakemodel.Call(n.shell, map[string]any{"command": c.Command, "description": c.Purpose})
	case "glob":
		return fakemodel.Call(n.glob, map[string]any{"pattern": c.Pattern})
	}
	return fakemodel.Call(n.search, map[string]any{"pattern": c.Pattern})
}

// HistoryDir is the agent's history folder below home.
func (a *Agent) HistoryDir(home string) string {
	return filepath.Join(home, filepath.FromSlash(a.History))
}
