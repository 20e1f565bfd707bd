package editdiff

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Unified returns the diff an Edit-like tool call shows as the text of a
// unified diff, for exports, or nil when its input carries none (a
// compacted MultiEdit, a Codex change without text). An apply_patch
// envelope or a unified diff is kept as written, with "--- a/x" and
// "+++ b/x" headers added to a unified diff without them; Claude's
// old_string/new_string and, for Write, the written content when ingestion
// kept it, become one hunk. Each Line's Text is the whole line as written,
// its '+', '-' or ' ' included; Op classifies it.
func Unified(tool, filePath string, input json.RawMessage) []Line {
	in, ok := Parse(filePath, input)
	switch {
	case !ok:
		return nil
	case in.Patch != "":
		return classify(in.Patch)
	case in.UnifiedDiff != "":
		if !strings.Contains(in.UnifiedDiff, "\n--- ") && !strings.HasPrefix(in.UnifiedDiff, "--- ") {
			return append(fileHeader(in.Path, in.Path), classify(in.UnifiedDiff)...)
		}
		return classify(in.UnifiedDiff)
	case in.OldString != nil || in.NewString != nil:
		return unifiedHunk(in.Path, Deref(in.OldString), Deref(in.NewString))
	case in.Content != nil && (tool == "Write" || tool == "write"):
		return unifiedHunk(in.Path, "", *in.Content)
	}
	return nil
}

// unifiedHunk diffs two texts line by line (Lines, as the window's Edit
// cards do) into one hunk with every line of both texts, as an Edit's
// strings are short excerpts whose place in the file is unknown.
func unifiedHunk(path, oldText, newText string) []Line {
	signs := [...]string{Equal: " ", Delete: "-", Insert: "+"}
	var body []Line
	oldN, newN := 0, 0
	for _, l := range Lines(oldText, newText) {
		body = append(body, Line{Op: l.Op, Text: signs[l.Op] + l.Text})
		if l.Op != Insert {
			oldN++
		}
		if l.Op != Delete {
			newN++
		}
	}
	oldPath := path
	if oldText == "" {
		oldPath = "/dev/null"
	}
	out := fileHeader(oldPath, path)
	out = append(out, Line{Op: Hunk, Text: fmt.Sprintf("@@ -%s +%s @@", hunkRange(oldN), hunkRange(newN))})
	return append(out, body...)
}

// fileHeader returns the "--- a/x" and "+++ b/x" lines of a diff.
func fileHeader(oldPath, newPath string) []Line {
	side := func(prefix, p string) string {
		if p == "/dev/null" {
			return p
		}
		return prefix + strings.TrimPrefix(p, "/")
	}
	return []Line{
		{Op: Meta, Text: "--- " + side("a/", oldPath)},
		{Op: Meta, Text: "+++ " + side("b/", newPath)},
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

// classify classifies the lines of a unified diff or an apply_patch
// envelope by their first characters, keeping each as written.
func classify(patch string) []Line {
	var out []Line
	for _, l := range SplitLines(patch) {
		op := Equal
		switch {
		case strings.HasPrefix(l, "*** "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "),
			strings.HasPrefix(l, "diff --git "), strings.HasPrefix(l, "index "):
			op = Meta
		case strings.HasPrefix(l, "@@"):
			op = Hunk
		case strings.HasPrefix(l, "+"):
			op = Insert
		case strings.HasPrefix(l, "-"):
			op = Delete
		}
		out = append(out, Line{Op: op, Text: l})
	}
	return out
}
