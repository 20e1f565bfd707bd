package editdiff

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ParsePatch parses a Codex apply_patch envelope into one diff per file.
// Lines outside a file section and the envelope markers are ignored; a
// "*** Move to: x" line makes the file's op "move to x".
func ParsePatch(patch string) []File {
	var files []File
	var cur *File
	for _, l := range SplitLines(patch) {
		path, op, isHeader := PatchHeader(l)
		switch {
		case isHeader && op != PatchMove:
			files = append(files, File{Path: path, Op: op})
			cur = &files[len(files)-1]
			continue
		case cur == nil:
			continue
		case isHeader:
			cur.Op = "move to " + path
			continue
		case strings.HasPrefix(l, "*** "):
			continue
		}
		cur.Lines = append(cur.Lines, patchLine(l))
	}
	for i := range files {
		files[i].Lines = trimTrailingBlank(files[i].Lines)
		AddWordSpans(files[i].Lines)
	}
	return files
}

// patchLine classifies one body line of a patch or hunk. A line without a
// prefix is context: models often drop the leading space of blank lines.
func patchLine(l string) Line {
	switch {
	case strings.HasPrefix(l, "@@"):
		return Line{Op: Hunk, Text: strings.TrimSpace(l)}
	case strings.HasPrefix(l, "+"):
		return Line{Op: Insert, Text: l[1:]}
	case strings.HasPrefix(l, "-"):
		return Line{Op: Delete, Text: l[1:]}
	case strings.HasPrefix(l, " "):
		return Line{Op: Equal, Text: l[1:]}
	}
	return Line{Op: Equal, Text: l}
}

// trimTrailingBlank drops empty context lines at the end of a section.
func trimTrailingBlank(lines []Line) []Line {
	for len(lines) > 0 {
		last := lines[len(lines)-1]
		if last.Op != Equal || last.Text != "" {
			break
		}
		lines = lines[:len(lines)-1]
	}
	return lines
}

// unifiedParser holds the state of ParseUnified.
type unifiedParser struct {
	files            []File
	defaultPath      string
	oldLeft, newLeft int // lines still expected in the current hunk
	oldPath          string
}

// ParseUnified parses a unified diff (with or without "diff --git",
// "---" and "+++" file headers) into one diff per file. Hunk bodies are read
// by the line counts of their "@@ -a,b +c,d @@" header, so a deleted line
// that starts with "--" is not taken for a file header. path names the file
// when the diff has no headers.
func ParseUnified(diff, path string) []File {
	p := unifiedParser{defaultPath: path}
	for _, l := range SplitLines(diff) {
		if p.oldLeft > 0 || p.newLeft > 0 {
			p.hunkLine(l)
			continue
		}
		p.headerLine(l)
	}
	for i := range p.files {
		AddWordSpans(p.files[i].Lines)
	}
	return p.files
}

// hunkLine adds one line of a hunk body.
func (p *unifiedParser) hunkLine(l string) {
	if strings.HasPrefix(l, `\`) { // "\ No newline at end of file"
		return
	}
	d := patchLine(l)
	switch d.Op {
	case Delete:
		p.oldLeft--
	case Insert:
		p.newLeft--
	default:
		d.Op = Equal
		p.oldLeft--
		p.newLeft--
	}
	p.current().Lines = append(p.current().Lines, d)
}

// headerLine handles a line between hunks.
func (p *unifiedParser) headerLine(l string) {
	switch {
	case strings.HasPrefix(l, "diff --git "):
		p.files = append(p.files, File{Path: gitDiffPath(l), Op: PatchUpdate})
		p.oldPath = ""
	case strings.HasPrefix(l, "--- "):
		p.oldPath = diffHeaderPath(l[4:])
		if f := p.last(); f == nil || len(f.Lines) > 0 {
			p.files = append(p.files, File{Path: p.oldPath, Op: PatchUpdate})
		}
	case strings.HasPrefix(l, "+++ "):
		f := p.current()
		if path := diffHeaderPath(l[4:]); path != "/dev/null" {
			f.Path = path
		} else {
			f.Op = PatchDelete
		}
		if p.oldPath == "/dev/null" {
			f.Op = PatchAdd
		}
	case strings.HasPrefix(l, "@@"):
		p.oldLeft, p.newLeft = hunkCounts(l)
		p.current().Lines = append(p.current().Lines, Line{Op: Hunk, Text: strings.TrimSpace(l)})
	}
}

// last returns the file being parsed, or nil.
func (p *unifiedParser) last() *File {
	if len(p.files) == 0 {
		return nil
	}
	return &p.files[len(p.files)-1]
}

// current returns the file being parsed, starting one when there is none.
func (p *unifiedParser) current() *File {
	if len(p.files) == 0 {
		p.files = append(p.files, File{Path: p.defaultPath, Op: PatchUpdate})
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

// Files builds the diffs of an Edit tool call, one per file, or nil when
// its input carries no diff (a compacted MultiEdit, a Codex change without
// text). filePath is the call's file_path column, used when the input
// names none.
func Files(filePath string, input json.RawMessage) []File {
	in, ok := Parse(filePath, input)
	switch {
	case !ok:
		return nil
	case in.Patch != "":
		return ParsePatch(in.Patch)
	case in.UnifiedDiff != "":
		files := ParseUnified(in.UnifiedDiff, in.Path)
		for i := range files {
			if in.Kind != "" && in.Kind != PatchUpdate {
				files[i].Op = in.Kind
			}
		}
		return files
	case in.OldString != nil || in.NewString != nil:
		return []File{{Path: in.Path, Lines: WordDiff(Deref(in.OldString), Deref(in.NewString))}}
	}
	return nil
}
