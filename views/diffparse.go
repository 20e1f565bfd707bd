package views

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/editdiff"
)

// Codex apply_patch markers (the "*** Begin Patch" envelope).
const (
	patchUpdate = "*** Update File: "
	patchAdd    = "*** Add File: "
	patchDelete = "*** Delete File: "
	patchMove   = "*** Move to: "
)

// parseApplyPatch parses a Codex apply_patch envelope into one diff per
// file. Lines outside a file section and the envelope markers are ignored.
func parseApplyPatch(patch string) []fileDiff {
	var files []fileDiff
	var cur *fileDiff
	for _, l := range editdiff.SplitLines(patch) {
		if f, ok := patchFileHeader(l); ok {
			files = append(files, f)
			cur = &files[len(files)-1]
			continue
		}
		if cur == nil || strings.HasPrefix(l, "*** ") {
			if cur != nil && strings.HasPrefix(l, patchMove) {
				cur.op = "move to " + strings.TrimPrefix(l, patchMove)
			}
			continue
		}
		cur.lines = append(cur.lines, patchLine(l))
	}
	for i := range files {
		files[i].lines = trimTrailingBlank(files[i].lines)
		addWordSpans(files[i].lines)
	}
	return files
}

// patchFileHeader recognizes the line that starts a file section.
func patchFileHeader(l string) (fileDiff, bool) {
	for _, h := range []struct{ prefix, op string }{
		{patchUpdate, "update"}, {patchAdd, "add"}, {patchDelete, "delete"},
	} {
		if strings.HasPrefix(l, h.prefix) {
			return fileDiff{path: strings.TrimSpace(l[len(h.prefix):]), op: h.op}, true
		}
	}
	return fileDiff{}, false
}

// patchLine classifies one body line of a patch or hunk. A line without a
// prefix is context: models often drop the leading space of blank lines.
func patchLine(l string) diffLine {
	switch {
	case strings.HasPrefix(l, "@@"):
		return diffLine{kind: diffHunk, text: strings.TrimSpace(l)}
	case strings.HasPrefix(l, "+"):
		return diffLine{kind: diffInsert, text: l[1:]}
	case strings.HasPrefix(l, "-"):
		return diffLine{kind: diffDelete, text: l[1:]}
	case strings.HasPrefix(l, " "):
		return diffLine{kind: diffContext, text: l[1:]}
	}
	return diffLine{kind: diffContext, text: l}
}

// trimTrailingBlank drops empty context lines at the end of a section.
func trimTrailingBlank(lines []diffLine) []diffLine {
	for len(lines) > 0 {
		last := lines[len(lines)-1]
		if last.kind != diffContext || last.text != "" {
			break
		}
		lines = lines[:len(lines)-1]
	}
	return lines
}

// unifiedParser holds the state of parseUnifiedDiff.
type unifiedParser struct {
	files            []fileDiff
	defaultPath      string
	oldLeft, newLeft int // lines still expected in the current hunk
	oldPath          string
}

// parseUnifiedDiff parses a unified diff (with or without "diff --git",
// "---" and "+++" file headers) into one diff per file. Hunk bodies are read
// by the line counts of their "@@ -a,b +c,d @@" header, so a deleted line
// that starts with "--" is not taken for a file header. path names the file
// when the diff has no headers.
func parseUnifiedDiff(diff, path string) []fileDiff {
	p := unifiedParser{defaultPath: path}
	for _, l := range editdiff.SplitLines(diff) {
		if p.oldLeft > 0 || p.newLeft > 0 {
			p.hunkLine(l)
			continue
		}
		p.headerLine(l)
	}
	for i := range p.files {
		addWordSpans(p.files[i].lines)
	}
	return p.files
}

// hunkLine adds one line of a hunk body.
func (p *unifiedParser) hunkLine(l string) {
	if strings.HasPrefix(l, `\`) { // "\ No newline at end of file"
		return
	}
	d := patchLine(l)
	switch d.kind {
	case diffDelete:
		p.oldLeft--
	case diffInsert:
		p.newLeft--
	default:
		d.kind = diffContext
		p.oldLeft--
		p.newLeft--
	}
	p.current().lines = append(p.current().lines, d)
}

// headerLine handles a line between hunks.
func (p *unifiedParser) headerLine(l string) {
	switch {
	case strings.HasPrefix(l, "diff --git "):
		p.files = append(p.files, fileDiff{path: gitDiffPath(l), op: "update"})
		p.oldPath = ""
	case strings.HasPrefix(l, "--- "):
		p.oldPath = diffHeaderPath(l[4:])
		if f := p.last(); f == nil || len(f.lines) > 0 {
			p.files = append(p.files, fileDiff{path: p.oldPath, op: "update"})
		}
	case strings.HasPrefix(l, "+++ "):
		f := p.current()
		if path := diffHeaderPath(l[4:]); path != "/dev/null" {
			f.path = path
		} else {
			f.op = "delete"
		}
		if p.oldPath == "/dev/null" {
			f.op = "add"
		}
	case strings.HasPrefix(l, "@@"):
		p.oldLeft, p.newLeft = hunkCounts(l)
		p.current().lines = append(p.current().lines, diffLine{kind: diffHunk, text: strings.TrimSpace(l)})
	}
}

// last returns the file being parsed, or nil.
func (p *unifiedParser) last() *fileDiff {
	if len(p.files) == 0 {
		return nil
	}
	return &p.files[len(p.files)-1]
}

// current returns the file being parsed, starting one when there is none.
func (p *unifiedParser) current() *fileDiff {
	if len(p.files) == 0 {
		p.files = append(p.files, fileDiff{path: p.defaultPath, op: "update"})
	}
	return p.last()
}

// gitDiffPath takes the new path from "diff --git a/x b/x".
func gitDiffPath(l string) string {
	rest := strings.TrimPrefix(l, "diff --git ")
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}

// diffHeaderPath cleans the path of a "---"/"+++" header: no "a/" or "b/"
// prefix and no tab-separated timestamp.
func diffHeaderPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
}

// hunkCounts reads the old and new line counts of "@@ -a,b +c,d @@"; a
// missing count is 1.
func hunkCounts(l string) (oldN, newN int) {
	fields := strings.Fields(l)
	if len(fields) < 3 {
		return 0, 0
	}
	return rangeCount(fields[1], "-"), rangeCount(fields[2], "+")
}

// rangeCount parses the count of a "-a,b" or "+c,d" hunk range.
func rangeCount(r, sign string) int {
	r, ok := strings.CutPrefix(r, sign)
	if !ok {
		return 0
	}
	_, count, found := strings.Cut(r, ",")
	if !found {
		return 1
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// editDiffs builds the diffs of an Edit tool call, or nil when its input
// carries no diff (a compacted MultiEdit, a Codex change without text).
// filePath is the call's file_path column, used when the input names none.
func editDiffs(filePath string, input json.RawMessage) []fileDiff {
	in, ok := editdiff.Parse(filePath, input)
	switch {
	case !ok:
		return nil
	case in.Patch != "":
		return parseApplyPatch(in.Patch)
	case in.UnifiedDiff != "":
		files := parseUnifiedDiff(in.UnifiedDiff, in.Path)
		for i := range files {
			if in.Kind != "" && in.Kind != "update" {
				files[i].op = in.Kind
			}
		}
		return files
	case in.OldString != nil || in.NewString != nil:
		return []fileDiff{{path: in.Path, lines: lineDiff(editdiff.Deref(in.OldString), editdiff.Deref(in.NewString))}}
	}
	return nil
}
