package native

// This file tells whether a native session ran in a project folder.

import (
	"path/filepath"
	"strings"
)

// RanIn reports whether the session ran in dir or below it (see
// Options.Project).
func (n Session) RanIn(dir string) bool { return newProjectMatcher(dir).match(n) }

// inProject keeps the sessions that ran in project or below it.
func inProject(sessions []Session, project string) []Session {
	m := newProjectMatcher(project)
	var out []Session
	for _, n := range sessions {
		if m.match(n) {
			out = append(out, n)
		}
	}
	return out
}

// projectMatcher tells whether a session ran inside a project folder.
type projectMatcher struct {
	dirs    []string // the folder as given and with symbolic links resolved
	encoded string   // Claude's folder name for it
}

func newProjectMatcher(project string) projectMatcher {
	abs, err := filepath.Abs(project)
	if err != nil {
		abs = filepath.Clean(project)
	}
	m := projectMatcher{dirs: []string{abs}, encoded: EncodeClaudeProject(abs)}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		m.dirs = append(m.dirs, real)
	}
	return m
}

// match reports whether n ran inside the project: by its cwd, or for a
// Claude session whose head names no cwd, by its project folder's name
// (which Claude derives from the cwd, losing every non-alphanumeric
// character, so it is only a fallback).
func (m projectMatcher) match(n Session) bool {
	if n.Cwd == "" {
		return n.project != "" && (n.project == m.encoded || strings.HasPrefix(n.project, m.encoded+"-"))
	}
	cwds := []string{filepath.Clean(n.Cwd)}
	if real, err := filepath.EvalSymlinks(n.Cwd); err == nil {
		cwds = append(cwds, real)
	}
	for _, c := range cwds {
		for _, d := range m.dirs {
			if c == d || strings.HasPrefix(c, strings.TrimSuffix(d, string(filepath.Separator))+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

// EncodeClaudeProject returns the folder name Claude Code gives a project
// under ~/.claude/projects: every UTF-16 code unit that is not an ASCII
// letter or digit becomes '-'. (Names over 200 characters, which Claude
// also cuts and hashes, are not reproduced.)
func EncodeClaudeProject(dir string) string {
	var b strings.Builder
	for _, r := range dir {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--") // a surrogate pair
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}
