package main

import (
	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

// geminiModel is the model the captures run with: a named model skips
// Gemini CLI's router, which asks the model to classify each prompt.
const geminiModel = "gemini-2.5-pro"

// geminiTask is what the sub-agent capture's main agent asks its helper.
const geminiTask = "Count the lines of notes.txt and report the number."

// geminiMultitool is the first session's script: write, read, edit,
// shell ok, shell failing, search.
var geminiMultitool = fakemodel.Script{
	{Thinking: "The user wants a report. I will write it, then check the notes.", Text: "I'll write the report and read the notes.",
		Tools: []fakemodel.ToolCall{
			fakemodel.Call("write_file", map[string]any{"file_path": "{{CWD}}/report.md", "content": "# Report\n\nalpha\nbeta\n"}),
			fakemodel.Call("read_file", map[string]any{"file_path": "{{CWD}}/notes.txt"}),
		}},
	fakemodel.Tools("Now the edit, the checks and a search.",
		fakemodel.Call("replace", map[string]any{"file_path": "{{CWD}}/report.md", "instruction": "Capitalise beta.",
			"old_string": "beta\n", "new_string": "BETA\ngamma\n"}),
		fakemodel.Call("run_shell_command", map[string]any{"command": "ls", "description": "List the files."}),
		fakemodel.Call("run_shell_command", map[string]any{"command": "cat missing.txt", "description": "Show a missing file."}),
		fakemodel.Call("grep_search", map[string]any{"pattern": "gamma"}),
	),
	fakemodel.Text("The report is in **report.md**."),
}

var agents = map[string]agentSpec{
	"gemini": {
		name: "gemini",
		scenarios: []scenario{
			{name: "multitool", prompt: "Turn notes.txt into a report", script: geminiMultitool},
			// The resumed conversation carries the first one's tool calls,
			// which place it at step 2: the script goes on from there.
			{name: "resumed", prompt: "Count the report's lines", resume: true, script: append(geminiMultitool[:2:2],
				fakemodel.Tools("Counting.", fakemodel.Call("run_shell_command", map[string]any{"command": "wc -l report.md"})),
				fakemodel.Text("report.md has 5 lines."))},
			{name: "apierror", prompt: "Say hello", script: fakemodel.Script{fakemodel.Fail(500, 0)}},
			// The main agent asks Gemini's generalist sub-agent (invoke_agent),
			// whose own conversation runs a shell step and ends with
			// complete_task.
			{name: "subagent", prompt: "Ask a helper how long notes.txt is", alone: true, script: fakemodel.Script{
				fakemodel.Tools("Asking a helper.", fakemodel.Call("invoke_agent", map[string]any{"agent_name": "generalist", "prompt": geminiTask})),
				fakemodel.Text("notes.txt has 3 lines."),
			}, routes: []fakemodel.Route{{Contains: geminiTask, Script: fakemodel.Script{
				fakemodel.Tools("Counting.", fakemodel.Call("run_shell_command", map[string]any{"command": "wc -l < notes.txt", "description": "Count the lines."})),
				fakemodel.Tools("Done.", fakemodel.Call("complete_task", map[string]any{"result": map[string]any{"response": "notes.txt has 3 lines."}})),
				fakemodel.Text("notes.txt has 3 lines."),
			}}}},
		},
		prepare: func(srv *fakemodel.Server, home string) ([]string, error) {
			return fakemodel.GeminiEnv(srv, home)
		},
		args: func(prompt string, resume bool) []string {
			args := []string{"-p", prompt, "--output-format", "stream-json", "--yolo", "--model", geminiModel}
			if resume {
				args = append(args, "--resume", "latest")
			}
			return args
		},
		history: []string{".gemini"},
	},
}
