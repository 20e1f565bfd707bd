package main

import (
	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

// qwenTask is what the sub-agent capture's main agent asks its helper.
const qwenTask = "Count the lines of notes.txt and report the number."

// qwenMultitool is the first session's script: write, read, edit, shell
// ok, shell failing, search.
var qwenMultitool = fakemodel.Script{
	{Thinking: "The user wants a report. I will write it, then check the notes.", Text: "I'll write the report and read the notes.",
		Tools: []fakemodel.ToolCall{
			fakemodel.Call("write_file", map[string]any{"file_path": "{{CWD}}/report.md", "content": "# Report\n\nalpha\nbeta\n"}),
			fakemodel.Call("read_file", map[string]any{"file_path": "{{CWD}}/notes.txt"}),
		}},
	fakemodel.Tools("Now the edit, the checks and a search.",
		fakemodel.Call("edit", map[string]any{"file_path": "{{CWD}}/report.md", "old_string": "beta\n", "new_string": "BETA\ngamma\n"}),
		fakemodel.Call("run_shell_command", map[string]any{"command": "ls", "description": "List the files."}),
		fakemodel.Call("run_shell_command", map[string]any{"command": "cat missing.txt", "description": "Show a missing file."}),
		fakemodel.Call("grep_search", map[string]any{"pattern": "gamma"}),
	),
	fakemodel.Text("The report is in **report.md**."),
}

func init() {
	agents["qwen"] = agentSpec{
		name: "qwen",
		scenarios: []scenario{
			{name: "multitool", prompt: "Turn notes.txt into a report", script: qwenMultitool},
			{name: "resumed", prompt: "Count the report's lines", resume: true, script: append(qwenMultitool[:2:2],
				fakemodel.Tools("Counting.", fakemodel.Call("run_shell_command", map[string]any{"command": "wc -l report.md"})),
				fakemodel.Text("report.md has 5 lines."))},
			{name: "apierror", prompt: "Say hello", script: fakemodel.Script{fakemodel.Fail(500, 0)}},
			// The main agent asks a general-purpose sub-agent (the agent
			// tool, in the foreground), whose own conversation runs a
			// shell step and answers.
			{name: "subagent", prompt: "Ask a helper how long notes.txt is", alone: true, script: fakemodel.Script{
				fakemodel.Tools("Asking a helper.", fakemodel.Call("agent", map[string]any{"description": "Count lines", "prompt": qwenTask,
					"subagent_type": "general-purpose", "run_in_background": false})),
				fakemodel.Text("notes.txt has 3 lines."),
			}, routes: []fakemodel.Route{{Contains: qwenTask, Script: fakemodel.Script{
				fakemodel.Tools("Counting.", fakemodel.Call("run_shell_command", map[string]any{"command": "wc -l < notes.txt", "description": "Count the lines."})),
				fakemodel.Text("notes.txt has 3 lines."),
			}}}},
		},
		prepare: func(srv *fakemodel.Server, home string) ([]string, error) {
			return fakemodel.QwenEnv(srv, home)
		},
		args: func(prompt string, resume bool) []string {
			args := []string{"--output-format", "stream-json", "--approval-mode", "yolo"}
			if resume {
				args = append(args, "--continue")
			}
			return append(args, prompt)
		},
		history: []string{".qwen"},
	}
}
