package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
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
	var in struct {
		FilePath    string  `json:"file_path"`
		Path        string  `json:"path"`
		OldString   *string `json:"old_string"`
		NewString   *string `json:"new_string"`
		Content     *string `json:"content"`
		Patch       string  `json:"patch"`
		UnifiedDiff string  `json:"unified_diff"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		var raw string
		if json.Unmarshal(input, &raw) == nil && strings.Contains(raw, "*** Begin Patch") {
			return patchLines(raw)
		}
		return nil
	}
	path := firstNonEmpty(in.FilePath, in.Path, filePath)
	switch {
	case in.Patch != "":
		return patchLines(in.Patch)
	case in.UnifiedDiff != "":
		if !strings.Contains(in.UnifiedDiff, "\n--- ") && !strings.HasPrefix(in.UnifiedDiff, "--- ") {
			return append(fileHeader(path, path), patchLines(in.UnifiedDiff)...)
		}
		return patchLines(in.UnifiedDiff)
	case in.OldString != nil || in.NewString != nil:
		return unifiedDiff(path, deref(in.OldString), deref(in.NewString))
	case in.Content != nil && (tool == "Write" || tool == "write"):
		return unifiedDiff(path, "", *in.Content)
	}
	return nil
}

// unifiedDiff diffs two texts line by line (go-diff's line mode, as the
// window's Edit cards do) into one hunk with every line of both texts, as
// an Edit's strings are short excerpts whose place in the file is unknown.
func unifiedDiff(path, oldText, newText string) []diffLine {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(withFinalNewline(oldText), withFinalNewline(newText))
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	var body []diffLine
	oldN, newN := 0, 0
	for _, d := range diffs {
		op := opContext
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = opDelete
		case diffmatchpatch.DiffInsert:
			op = opInsert
		}
		for _, l := range splitLines(d.Text) {
			body = append(body, diffLine{op: op, text: string(op) + l})
			if op != opInsert {
				oldN++
			}
			if op != opDelete {
				newN++
			}
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
	for _, l := range splitLines(patch) {
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

// withFinalNewline makes the last line of a non-empty s end in "\n", so
// that "a" and "a\n" diff as the same line.
func withFinalNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// splitLines splits s on "\n" without an empty last line after a final
// newline, dropping a trailing "\r" from each line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
