package agents

// This file decides a permission request from the rules, as claude's own
// matcher does or more strictly. Lazuli is asked only what claude did not
// decide itself, so its answer is the last word: whatever it cannot be
// sure a rule allows, it asks about.
//
//   - A Bash command is split into the commands it runs (&&, ||, ;, |,
//     newlines, substitutions, sh -c strings, wrappers such as sudo or
//     timeout). An allow rule approves it only when every one of them is
//     allowed, none substitutes a command and none writes a file through
//     a redirection. A deny (or ask) rule matches when it matches any of
//     them, with the program named by its base name however it is spelled
//     (/bin/rm, \rm, "rm", leading blanks or tabs), or the whole line.
//     A command whose program cannot be known without running the shell is
//     denied when a deny rule could name it, else asked about.
//   - A path is resolved against the session's worktree (.., symlinks)
//     before it is matched. A relative pattern is anchored in the worktree
//     and never matches outside it; "//abs" and "~/x" patterns are
//     absolute.
//   - deny wins over ask, ask over allow; no rule matching asks.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Decide answers a permission request from the rules alone, in claude's
// order: a matching deny rule wins, then ask, then allow; "" when no rule
// decides (the caller asks the user).
func (p Policy) Decide(tool string, input json.RawMessage) string {
	action, _ := p.decide(tool, input)
	return action
}

// decide is Decide with the reason for a deny.
func (p Policy) decide(tool string, input json.RawMessage) (action, why string) {
	subject := ruleSubject(tool, input)
	var m matcher
	if tool == "Bash" {
		m = newBashMatcher(subject)
	} else {
		m = newPathMatcher(subject, p.Dir)
	}
	for _, action := range []string{ActionDeny, ActionAsk} {
		for _, r := range p.Rules {
			if r.Action == action && ruleCovers(r.Permission, tool) && m.any(r.Pattern) {
				return action, "A rule of this session denies it (deny " + RuleSpec(r) + ")."
			}
		}
	}
	if m.unsure() {
		for _, r := range p.Rules {
			if r.Action == ActionDeny && r.Pattern != "" && ruleCovers(r.Permission, tool) {
				return ActionDeny, "Lazuli cannot tell what this runs or touches without running it, and a rule of this session denies some of it (deny " + RuleSpec(r) + ")."
			}
		}
	}
	var allows []string
	for _, r := range p.Rules {
		if r.Action == ActionAllow && ruleCovers(r.Permission, tool) {
			if r.Pattern == "" {
				return ActionAllow, ""
			}
			allows = append(allows, r.Pattern)
		}
	}
	if len(allows) > 0 && m.all(allows) {
		return ActionAllow, ""
	}
	return "", ""
}

// matcher matches a request's subject against rule patterns.
type matcher interface {
	any(pattern string) bool    // the pattern matches some part (deny, ask)
	all(patterns []string) bool // every part is matched by one of the patterns (allow)
	unsure() bool               // the subject cannot be read with certainty
}

// bashMatcher matches a command line.
type bashMatcher struct {
	whole string // the line trimmed, blanks collapsed
	raw   string // the line trimmed
	line  shellLine
}

func newBashMatcher(cmd string) *bashMatcher {
	return &bashMatcher{whole: strings.Join(strings.Fields(cmd), " "), raw: strings.TrimSpace(cmd), line: splitShell(cmd)}
}

func (b *bashMatcher) unsure() bool { return b.line.doubt }

func (b *bashMatcher) any(pattern string) bool {
	if pattern == "" || bashMatches(pattern, b.whole) || bashMatches(pattern, b.raw) {
		return true
	}
	for _, c := range b.line.cmds {
		if bashMatches(pattern, c.raw) || bashMatches(pattern, c.rest) || bashMatches(pattern, c.normalized()) || bashMatches(pattern, strings.Join(c.words, " ")) {
			return true
		}
	}
	return false
}

func (b *bashMatcher) all(patterns []string) bool {
	// The exact line an "Always allow" recorded is allowed as it is.
	for _, p := range patterns {
		if !strings.Contains(p, "*") && p == b.raw {
			return true
		}
	}
	if b.line.doubt || len(b.line.cmds) == 0 {
		return false
	}
	for _, c := range b.line.cmds {
		if c.subst || c.writes || c.unsure {
			return false
		}
		if len(c.words) == 0 {
			continue // a lone keyword or brace
		}
		ok := false
		for _, p := range patterns {
			if bashMatches(p, c.raw) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// bashMatches matches one command against a Bash pattern as claude does:
// "*" matches anything; "git *" also matches the bare "git"; the older
// "npm run test:*" matches the command and what follows it after a space.
func bashMatches(pattern, cmd string) bool {
	if cmd == "" {
		return false
	}
	if prefix, ok := strings.CutSuffix(pattern, ":*"); ok {
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	if prefix, ok := strings.CutSuffix(pattern, " *"); ok && !strings.Contains(prefix, "*") && cmd == prefix {
		return true
	}
	parts := strings.Split(pattern, "*")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	re, err := regexp.Compile("^" + strings.Join(parts, ".*") + "$")
	return err == nil && re.MatchString(cmd)
}

// pathMatcher matches a file's path.
type pathMatcher struct {
	abs  string // the subject resolved (.., symlinks); "" when unknown
	rel  string // abs relative to the worktree; "" when outside it
	loop bool   // the path could not be resolved (a symlink loop)
}

func newPathMatcher(subject, dir string) *pathMatcher {
	m := &pathMatcher{}
	if subject == "" {
		return m
	}
	if dir != "" {
		if d, err := filepath.Abs(dir); err == nil {
			dir = d
		}
	}
	if !filepath.IsAbs(subject) {
		if dir == "" {
			return m
		}
		subject = dir + "/" + subject // not Join: ".." is resolved against what is on disk
	}
	abs, ok := resolvePath(subject)
	if !ok {
		m.loop = true
		return m
	}
	m.abs = abs
	if dir != "" {
		root, ok := resolvePath(dir)
		if rel, err := filepath.Rel(root, abs); ok && err == nil && !outside(rel) {
			m.rel = filepath.ToSlash(rel)
		}
	}
	return m
}

func (m *pathMatcher) unsure() bool { return m.loop }

func (m *pathMatcher) any(pattern string) bool {
	if pattern == "" {
		return true
	}
	if m.abs == "" {
		return false
	}
	// A deny of a bare name (".env") holds everywhere, not only in the
	// worktree, and covers a folder's contents.
	if name := strings.TrimPrefix(pattern, "./"); !strings.Contains(name, "/") && !strings.HasPrefix(pattern, "~") {
		if re, err := regexp.Compile("(^|/)" + globRegexp(name) + "(/|$)"); err == nil && re.MatchString(m.abs) {
			return true
		}
	}
	return m.matches(pattern)
}

func (m *pathMatcher) all(patterns []string) bool {
	for _, p := range patterns {
		if m.matches(p) {
			return true
		}
	}
	return false
}

// matches matches the path against one pattern, gitignore-style: "//abs"
// and "~/x" from the file system's root and the home folder; "/x", "./x"
// and "x/y" from the worktree's root; a bare name ("*.go") at any depth
// of the worktree; "**" crosses folders, "*" and "?" do not.
func (m *pathMatcher) matches(pattern string) bool {
	if m.abs == "" {
		return false
	}
	subject := m.abs
	switch {
	case strings.HasPrefix(pattern, "//"):
		pattern = resolvePattern(pattern[1:])
	case strings.HasPrefix(pattern, "~/"):
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return false
		}
		pattern = resolvePattern(filepath.Join(home, pattern[2:]) + trailingSlash(pattern))
	default:
		if m.rel == "" {
			return false // a relative pattern never matches outside the worktree
		}
		subject = m.rel
		bare := !strings.Contains(strings.TrimSuffix(pattern, "/"), "/")
		pattern = strings.TrimPrefix(strings.TrimPrefix(pattern, "./"), "/")
		if strings.HasPrefix(pattern, "../") || pattern == ".." || strings.Contains(pattern, "/../") {
			return false
		}
		if bare {
			pattern = "**/" + pattern
		}
	}
	re, err := regexp.Compile("^" + globRegexp(pattern) + "$")
	return err == nil && re.MatchString(subject)
}

// trailingSlash is "/" when p ends in one.
func trailingSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return "/"
	}
	return ""
}

// globRegexp writes a path glob as a regular expression: "**/" matches
// any folders (none included), "**" anything, "*" and "?" within a name;
// a trailing "/" matches everything under the folder.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '/' && i == len(g)-1:
			b.WriteString("/.*")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// resolvePattern resolves the folders of an absolute pattern before its
// first wildcard, so that a pattern naming a folder through a symlink
// matches the files resolved paths name.
func resolvePattern(p string) string {
	fixed := p
	if i := strings.IndexAny(p, "*?"); i >= 0 {
		fixed = p[:strings.LastIndexByte(p[:i], '/')+1]
	}
	if fixed == "" || fixed == "/" {
		return p
	}
	r, ok := resolvePath(strings.TrimSuffix(fixed, "/"))
	if !ok {
		return p
	}
	return r + p[len(strings.TrimSuffix(fixed, "/")):]
}

// maxSymlinks bounds the links followed resolving one path, as the
// kernel's ELOOP does.
const maxSymlinks = 40

// resolvePath resolves an absolute path the way the kernel will: ".."
// goes to the parent of what the path so far really is, and symlinks are
// followed; the part that does not exist yet is taken as written. ok is
// false on a symlink loop.
func resolvePath(p string) (string, bool) {
	cur, todo := splitRoot(p)
	exists := true
	links := 0
	for len(todo) > 0 {
		comp := todo[0]
		todo = todo[1:]
		switch comp {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, comp)
		if exists {
			fi, err := os.Lstat(next)
			switch {
			case err != nil:
				exists = false
			case fi.Mode()&os.ModeSymlink != 0:
				target, err := os.Readlink(next)
				if err != nil {
					return "", false
				}
				if links++; links > maxSymlinks {
					return "", false
				}
				if filepath.IsAbs(target) {
					var rest []string
					cur, rest = splitRoot(target)
					todo = append(rest, todo...)
				} else {
					todo = append(strings.Split(filepath.ToSlash(target), "/"), todo...)
				}
				continue
			}
		}
		cur = next
	}
	return cur, true
}

// splitRoot splits an absolute path into its root ("/"; a drive's or a
// share's on Windows, C:\) and the names below it.
func splitRoot(p string) (root string, names []string) {
	vol := filepath.VolumeName(p)
	return vol + string(filepath.Separator), strings.Split(filepath.ToSlash(p[len(vol):]), "/")
}

// outside reports whether rel, a path made relative by filepath.Rel, leads
// out of its folder: ".." or below it. A backslash counts as a separator
// everywhere: on Windows it is one, and elsewhere a name holding one is
// left unmatched, never matched outside.
func outside(rel string) bool {
	rel = strings.ReplaceAll(rel, `\`, "/")
	return rel == ".." || strings.HasPrefix(rel, "../")
}
