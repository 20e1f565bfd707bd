// Package views holds Lazuli's Fyne screens and widgets: the session sidebar,
// the transcript of a session, the context meter and the prompt box that
// continues a session, composed by MainView, and the agent settings dialog.
//
// Views render state that the app layer hands them (store types such as
// store.Session and store.StoredEvent) and turn user gestures into intents on
// the Actions interface (its RunActions part for runs and agent settings);
// they never touch the store's file or the agents.
//
// Concurrency: every function and method of this package must be called on
// the Fyne goroutine (inside fyne.Do when the caller is a background
// goroutine). The pure helpers (the diff model, row building) hold no widgets
// and are safe anywhere.
package views
