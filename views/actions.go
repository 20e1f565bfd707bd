package views

// SessionRef names one session among the stores shown together: the store
// file that holds it and its id in that file.
type SessionRef struct {
	StorePath string
	ID        int64
}

// Actions are the intents the views send to the app layer. The app layer
// runs any I/O off the Fyne goroutine and reports results back through the
// views' Apply/Set methods. Views ask the user for confirmation before
// calling a destructive intent.
type Actions interface {
	RunActions
	LifecycleActions
	SessionInsightActions
	PermissionActions
	LinkActions

	// SelectSession opens ref in the transcript.
	SelectSession(ref SessionRef)
	// NewSession creates a session for worktree (a branch name) in the
	// store at storePath.
	NewSession(storePath, worktree string)
	// RenameSession sets the name of ref; name is trimmed and not empty.
	RenameSession(ref SessionRef, name string)
	// DeleteSession deletes ref and its events; the user has confirmed it.
	DeleteSession(ref SessionRef)
	// LoadEarlier loads events of ref, the session shown, from before the
	// first one the transcript shows: the next batch, or all of them. The
	// app answers with Transcript.PrependEvents.
	LoadEarlier(ref SessionRef, all bool)
	// OpenSubagent opens the session that holds the work of the sub-agent
	// started by the Agent/Task call toolUseID of session parent.
	OpenSubagent(parent SessionRef, toolUseID string)
	// OpenParent opens the session whose sub-agent's work ref holds.
	OpenParent(ref SessionRef)
}

// PromptRequest is a prompt the user sent from the prompt box.
type PromptRequest struct {
	Ref    SessionRef
	Prompt string // as typed; never empty after trimming
	Model  string // a ModelChoice.Name, or "" for the backend's default
}

// ModelChoice is one entry of the prompt box's model menu.
type ModelChoice struct {
	Name    string // what is passed to the CLI's --model, e.g. "opus", "gpt-5.5"
	Backend string // the backend's name: "claude", "codex", …
	Title   string // the backend's display name, "Copilot CLI"; "" shows the name capitalised
}

// BackendStatus describes one agent CLI as found on this machine.
type BackendStatus struct {
	Backend string // the backend's name: "claude", "codex", …
	Path    string // the executable that will run, as configured or found
	Version string // its --version output; "" when not found
	Err     string // why it cannot run, a phrase after the backend's name such as "not found"; "" when it can
}

// AgentSettings are the user's agent settings.
type AgentSettings struct {
	// Paths are the executables by backend name; a missing or "" path
	// means the backend's LAZULI_* variable or its command on PATH.
	Paths map[string]string
	// ShareHistory lets the agents this project runs search its history
	// (`lazuli mcp` in their MCP configuration); a setting of the project.
	ShareHistory bool
}

// AgentBackend describes one backend for the agent settings: one path
// field each, in this order.
type AgentBackend struct {
	Name    string // as stored: "claude"
	Title   string // "Claude"
	Command string // looked up on PATH: "claude"
	EnvVar  string // wins over the path: "LAZULI_CLAUDE"
}

// RunActions are the intents of the prompt box and the agent settings.
// The prompt box sends SendPrompt only when a session is set, no run is
// going on and the selected model's backend has no Err; StopRun only while
// running; SwitchModel only for the user's own choices in the model menu.
type RunActions interface {
	// SendPrompt runs the session's agent on req.Prompt.
	SendPrompt(req PromptRequest)
	// StopRun stops the agent running on ref.
	StopRun(ref SessionRef)
	// SwitchModel records that the user chose model for ref.
	SwitchModel(ref SessionRef, model string)
	// SaveAgentSettings stores s and re-detects the CLIs.
	SaveAgentSettings(s AgentSettings)
}

// NativeImportActions are the intents of the Import native history dialog
// (ShowNativeImport). The app scans and imports off the Fyne goroutine and
// reports back through the dialog's Set and Finish methods.
type NativeImportActions interface {
	// ImportNative imports the native sessions whose NativeRow.Key is in
	// keys; keys is never empty.
	ImportNative(keys []string)
	// CancelNativeImport stops the running import after the session being
	// stored.
	CancelNativeImport()
}

// ExportActions are the intents of the export dialog (ShowExport). The app
// loads and scans the session off the Fyne goroutine and hands the result
// to the dialog's SetScan (or SetError).
type ExportActions interface {
	// ExportSession writes req.Source, redacted when req.Redact, to
	// req.Path, off the Fyne goroutine, and tells the user how it went.
	ExportSession(req ExportRequest)
}

// SearchActions are the intents of the search panel (Ctrl+K). The app
// searches off the Fyne goroutine and answers through SetResults.
type SearchActions interface {
	// Search looks for query in every session of the window's stores and
	// hands the results to the panel's SetResults with the same id. A
	// newer query makes the results of older ones useless. The panel sends
	// every change of its query: Search may wait a moment for the next one
	// before it reads anything.
	Search(id int, query string)
	// OpenSearchHit shows the hit's session, scrolled to its event. The
	// window is still frozen under where the panel was (MainView.Backdrop):
	// thaw it once the hit is shown, or the load failed; it thaws itself a
	// second later.
	OpenSearchHit(hit SearchHit)
}
