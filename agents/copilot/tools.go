package copilot

import (
	"github.com/lazuli-app/lazuli/agents/parse"
)

// copilotTools maps Copilot CLI's tools onto AZUREAL's (Claude's) names
// and keys.
var copilotTools = map[string]parse.ToolMap{
	"view":        {Name: "Read", Keys: map[string]string{"path": "file_path"}},
	"create":      {Name: "Write", Keys: map[string]string{"path": "file_path", "file_text": "content"}},
	"edit":        {Name: "Edit", Keys: map[string]string{"path": "file_path", "old_str": "old_string", "new_str": "new_string"}},
	"str_replace": {Name: "Edit", Keys: map[string]string{"path": "file_path", "old_str": "old_string", "new_str": "new_string"}},
	"bash":        {Name: "Bash"},
	"powershell":  {Name: "Bash"},
	"grep":        {Name: "Grep"},
	"glob":        {Name: "Glob"},
	"task":        {Name: "Task", Keys: map[string]string{"agent_type": "subagent_type"}},
	"web_fetch":   {Name: "WebFetch"},
}
