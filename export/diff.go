package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/editdiff"
)

// diffOp classifies one line of a diff.
type diffOp byte

const (
	opContext diffOp = ' '
	opDelete  diffOp = '-'
	opInsert  diffOp = '+'
	opHunk    diffOp = '@' // "@@ -a,b +c,d @@"
	opMeta    diffOp = '*' // file headers: "--- a/x", "+++ b/x", "*** Update File: x"
)

// diffLine is one line of a diff as written in a unified diff: text
// includes the leading '+', '-' or ' '.
type diffLine struct {
	op   diffOp
	text string
}

// editDiff returns the diff an Edit-like tool call shows, or nil when its
// input carries none (a compacted MultiEdit, a Codex change without text).
// It reads, as the window's Edit cards do, Claude's old_string/new_string,
// Codex's apply_patch envelope (a "patch" member or the whole input as a
// string), a Codex file change's unified_diff, and, for Write, the written
// content when ingestion kept it.
func editDiff(tool, filePath string, input json.RawMessage) []diffLine {
	in, ok := editdiff.Parse(filePath, input)
	switch {
	case !ok:
		return nil
	case in.Patch != "":
		return patchLines(in.Patch)
	case in.UnifiedDiff != "":
		if !strings.Contains(in.UnifiedDiff, "\n--- ") && !strings.HasPrefix(in.UnifiedDiff, "--- ") {
			return append(fileHeader(in.Path, in.Path), patchLines(in.UnifiedDiff)...)
		}
		return patchLines(in.UnifiedDiff)
	case in.OldString != nil || in.NewString != nil:
		return unifiedDiff(in.Path, editdiff.Deref(in.OldString), editdiff.Deref(in.NewString))
	case in.Content != nil && (tool == "Write" || tool == "write"):
		return unifiedDiff(in.Path, "", *in.Content)
	}
	return nil
}

// unifiedDiff diffs two texts line by line (editdiff.Lines, as the
// window's Edit cards do) into one hunk with every line of both texts, as
// an Edit's strings are short excerpts whose place in the file is unknown.
func unifiedDiff(path, oldText, newText string) []diffLine {
	ops := [...]diffOp{editdiff.Equal: opContext, editdiff.Delete: opDelete, editdiff.Insert: opInsert}
	var body []diffLine
	oldN, newN := 0, 0
	for _, l := range editdiff.Lines(oldText, newText) {
		op := ops[l.Op]
		body = append(body, diffLine{op: op, text: string(op) + l.Text})
		if op != opInsert {
			oldN++
		}
		if op != opDelete {
			newN++
		}
	}
	oldPath := path
	if oldText == "" {
		oldPath = "/dev/null"
	}
	out := fileHeader(oldPath, path)
	out = append(out, diffLine{op: opHunk, text: fmt.Sprintf("@@ -%s +%s @@", hunkRange(oldN), hunkRange(newN))})
	return append(out, body...)
}

// fileHeader returns the "--- a/x" and "+++ b/x" lines of a diff.
func fileHeader(oldPath, newPath string) []diffLine {
	side := func(prefix, p string) string {
		if p == "/dev/null" {
			return p
		}
		return prefix + strings.TrimPrefix(p, "/")
	}
	return []diffLine{
		{op: opMeta, text: "--- " + side("a/", oldPath)},
		{op: opMeta, text: "+++ " + side("b/", newPath)},
	}
}

// hunkRange formats one side of a hunk header for a hunk that starts at
// the first line: "1,3", or "0,0" when that side is empty.
func hunkRange(n int) string {
	if n == 0 {
		return "0,0"
	}
	return fmt.Sprintf("1,%d", n)
}

// patchLines classifies the lines of a unified diff or a Codex apply_patch
// envelope by their first characters.
func patchLines(patch string) []diffLine {
	var out []diffLine
	for _, l := range editdiff.SplitLines(patch) {
		op := opContext
		switch {
		case strings.HasPrefix(l, "*** "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "),
			strings.HasPrefix(l, "diff --git "), strings.HasPrefix(l, "index "):
			op = opMeta
		case strings.HasPrefix(l, "@@"):
			op = opHunk
		case strings.HasPrefix(l, "+"):
			op = opInsert
		case strings.HasPrefix(l, "-"):
			op = opDelete
		}
		out = append(out, diffLine{op: op, text: l})
	}
	return out
}
