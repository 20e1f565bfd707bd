// Package editdiff owns the diff model: what an Edit-like tool call
// changed, for the window's Edit cards, for exports and for session
// summaries. It reads Claude's Edit (old_string/new_string) and Write
// (content, when ingestion kept it), a Codex apply_patch envelope (as a
// "patch" member, as the whole input, or run through the shell), a Codex
// file change's unified diff, and any unified diff; it parses them into
// files, hunks and lines, and marks the changed words of paired lines.
// A stored MultiEdit keeps only its file_path (the store compacts its
// edits), so it carries no diff. Views and export render this model; the
// package imports nothing of ours and never imports Fyne.
package editdiff

import (
	"encoding/json"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Input is what a tool call's input holds for a diff. At most one form is
// used, in this order: Patch, UnifiedDiff, OldString/NewString, Content.
type Input struct {
	// Path is the input's file_path or path, else the call's file_path
	// column.
	Path                 string
	Patch                string  // a Codex apply_patch envelope ("*** Begin Patch" …)
	UnifiedDiff          string  // a Codex file change's unified diff
	Kind                 string  // a Codex file change's kind: "add", "delete", "update"
	OldString, NewString *string // Claude's Edit
	Content              *string // Claude's Write, when ingestion kept it
}

// Parse reads a tool call's input. filePath is the call's file_path
// column, used when the input names no path. An input that is a JSON string
// holding an apply_patch envelope (Codex's custom tool call) is a Patch.
// ok is false when the input is neither an object nor such a string.
func Parse(filePath string, input json.RawMessage) (in Input, ok bool) {
	var raw struct {
		FilePath    string          `json:"file_path"`
		Path        string          `json:"path"`
		OldString   *string         `json:"old_string"`
		NewString   *string         `json:"new_string"`
		Content     *string         `json:"content"`
		Patch       string          `json:"patch"`
		UnifiedDiff string          `json:"unified_diff"`
		Kind        string          `json:"kind"`
		Command     json.RawMessage `json:"command"`
		Cmd         json.RawMessage `json:"cmd"`
	}
	if err := json.Unmarshal(input, &raw); err != nil {
		var s string
		if json.Unmarshal(input, &s) == nil && IsPatch(s) {
			return Input{Path: filePath, Patch: s}, true
		}
		return Input{}, false
	}
	path := raw.FilePath
	if path == "" {
		path = raw.Path
	}
	if path == "" {
		path = filePath
	}
	patch := raw.Patch
	if patch == "" {
		// apply_patch run through the shell (older Codex rollouts):
		// a Bash call whose command carries the envelope.
		patch = ShellPatch(ShellText(raw.Command))
		if patch == "" {
			patch = ShellPatch(ShellText(raw.Cmd))
		}
	}
	return Input{Path: path, Patch: patch, UnifiedDiff: raw.UnifiedDiff, Kind: raw.Kind,
		OldString: raw.OldString, NewString: raw.NewString, Content: raw.Content}, true
}

// ShellText is the text of a shell tool call's command member: a string,
// or an argv array (Codex) joined with spaces. It is "" for anything else.
func ShellText(command json.RawMessage) string {
	if len(command) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(command, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(command, &argv) == nil {
		return strings.Join(argv, " ")
	}
	return ""
}

// IsShellPatch reports whether a shell tool call (Codex's Bash, how older
// rollouts record edits) runs apply_patch with an envelope, so that it
// shows and exports as a diff rather than as a command. It looks at the
// raw input first, so a call without the envelope costs no decoding.
func IsShellPatch(input json.RawMessage) bool {
	if !strings.Contains(string(input), patchBegin) {
		return false
	}
	in, ok := Parse("", input)
	return ok && in.Patch != "" && len(ParsePatch(in.Patch)) > 0
}

// Op is what a line of a diff is.
type Op int8

// The ops of a diff line.
const (
	Equal  Op = iota // context: in both texts
	Delete           // only in the old text
	Insert           // only in the new text
	Hunk             // a hunk header ("@@ … @@"), a separator
	Meta             // a file header ("--- a/x", "*** Update File: x", "diff --git …")
)

// Span is a changed run inside a line, as byte offsets [Start, End).
type Span struct {
	Start, End int
}

// Line is one line of a diff, without its newline. Spans marks the changed
// words of a deleted or inserted line paired with a similar one.
type Line struct {
	Op    Op
	Text  string
	Spans []Span
}

// File is the diff of one file.
type File struct {
	Path  string
	Op    string // "update", "add", "delete", "move to x" (Codex); "" for a plain edit
	Lines []Line
}

// Stats counts the inserted and deleted lines of f.
func (f File) Stats() (added, removed int) {
	for _, l := range f.Lines {
		switch l.Op {
		case Insert:
			added++
		case Delete:
			removed++
		}
	}
	return added, removed
}

// Lines diffs two texts line by line (go-diff's line mode), without word
// spans. A missing final newline does not count: "a" and "a\n" are the
// same line.
func Lines(oldText, newText string) []Line {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(withFinalNewline(oldText), withFinalNewline(newText))
	var out []Line
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines) {
		op := Equal
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = Delete
		case diffmatchpatch.DiffInsert:
			op = Insert
		}
		for _, l := range SplitLines(d.Text) {
			out = append(out, Line{Op: op, Text: l})
		}
	}
	return out
}

// withFinalNewline makes the last line of a non-empty s end in "\n".
func withFinalNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// SplitLines splits s on "\n" without an empty last line after a final
// newline, dropping a trailing "\r" from each line.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// Deref is the string p points to, or "" for nil.
func Deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
