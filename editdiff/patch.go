package editdiff

import "strings"

// Codex apply_patch markers (the "*** Begin Patch" envelope).
const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchUpdate = "*** Update File: "
	patchAdd    = "*** Add File: "
	patchDelete = "*** Delete File: "
	patchMove   = "*** Move to: "
)

// The ops of a patch header line.
const (
	PatchAdd    = "add"
	PatchUpdate = "update"
	PatchDelete = "delete"
	PatchMove   = "move" // "*** Move to: x": the updated file's new path
)

// IsPatch reports whether s holds an apply_patch envelope.
func IsPatch(s string) bool { return strings.Contains(s, patchBegin) }

// PatchHeader recognizes a line of an apply_patch envelope that names a
// file: "*** Add File: x", "*** Update File: x", "*** Delete File: x" or
// "*** Move to: x". op is one of PatchAdd, PatchUpdate, PatchDelete,
// PatchMove; path is trimmed. A line with leading white space is not a
// header (it is a context line of the patch body).
func PatchHeader(line string) (path, op string, ok bool) {
	for _, h := range [...]struct{ prefix, op string }{
		{patchUpdate, PatchUpdate}, {patchAdd, PatchAdd}, {patchDelete, PatchDelete}, {patchMove, PatchMove},
	} {
		if rest, found := strings.CutPrefix(line, h.prefix); found {
			return strings.TrimSpace(rest), h.op, true
		}
	}
	return "", "", false
}

// ShellPatch returns the apply_patch envelope a shell command carries, as
// Codex runs it through the shell (`bash -lc 'apply_patch <<'PATCH'
// *** Begin Patch …'`): the lines from "*** Begin Patch" through
// "*** End Patch" (or the end of the command). It is "" when the command
// carries none.
func ShellPatch(command string) string {
	i := strings.Index(command, patchBegin)
	if i < 0 {
		return ""
	}
	patch := command[i:]
	if j := strings.Index(patch, patchEnd); j >= 0 {
		patch = patch[:j+len(patchEnd)]
	}
	return patch
}
