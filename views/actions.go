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
	// SelectSession opens ref in the transcript.
	SelectSession(ref SessionRef)
	// NewSession creates a session for worktree (a branch name) in the
	// store at storePath.
	NewSession(storePath, worktree string)
	// RenameSession sets the name of ref; name is trimmed and not empty.
	RenameSession(ref SessionRef, name string)
	// DeleteSession deletes ref and its events; the user has confirmed it.
	DeleteSession(ref SessionRef)
}
