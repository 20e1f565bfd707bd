// Package clicapture drives the real OpenCode, Pi and GitHub Copilot
// CLIs headless against internal/fakemodel and copies what they wrote
// (their native history and their stdout) into the parsers' testdata. Its
// test is the capture script: it runs only with -capture, so the suite
// never rewrites the captures.
//
//	go test ./internal/clicapture -run TestCapture/opencode -capture
//
// Each CLI gets a temporary HOME of its own and a git repository as its
// working folder; nothing of the user's configuration is read or written.
package clicapture
