package insight

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/editdiff"
)

// The actions of a file touch.
const (
	ActionRead   = "read"
	ActionEdit   = "edit"
	ActionWrite  = "write"
	ActionCreate = "create"
	ActionDelete = "delete"
)

// fileTouch is one file a tool call read or changed.
type fileTouch struct {
	path, action string
}

// filesOf returns the files a tool call touches: Read, Edit, MultiEdit,
// Write and NotebookEdit by their path; Codex's apply_patch (mapped to
// Edit, or run through the shell) and file_change items (Edit calls with
// a kind) by every file their patch names.
func filesOf(e *codec.Event) []fileTouch {
	if e.Kind != codec.KindToolCall {
		return nil
	}
	switch e.ToolName {
	case "Read":
		return one(pathOf(e), ActionRead)
	case "Write":
		return one(pathOf(e), ActionWrite)
	case "NotebookEdit", "MultiEdit":
		return one(pathOf(e), ActionEdit)
	case "Edit":
		if e.FilePath != nil && !bytes.Contains(e.Input, []byte(`"kind"`)) && !bytes.Contains(e.Input, []byte("*** ")) {
			return one(*e.FilePath, ActionEdit) // Claude's Edit: its path is the call's
		}
		in, ok := editdiff.Parse(editdiff.Deref(e.FilePath), e.Input)
		if !ok {
			return one(pathOf(e), ActionEdit)
		}
		if in.Patch != "" {
			return patchFiles(in.Patch)
		}
		switch in.Kind {
		case editdiff.PatchAdd:
			return one(in.Path, ActionCreate)
		case editdiff.PatchDelete:
			return one(in.Path, ActionDelete)
		}
		return one(in.Path, ActionEdit)
	}
	if !bytes.Contains(e.Input, []byte("*** Begin Patch")) {
		return nil // no apply_patch run through the shell
	}
	if p := editdiff.ShellPatch(commandOf(e.Input)); p != "" {
		return patchFiles(p)
	}
	return nil
}

func one(path, action string) []fileTouch {
	if path == "" {
		return nil
	}
	return []fileTouch{{path, action}}
}

// pathOf is a call's file_path column, else its input's file_path,
// notebook_path or path.
func pathOf(e *codec.Event) string {
	if p := editdiff.Deref(e.FilePath); p != "" {
		return p
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Path         string `json:"path"`
	}
	_ = json.Unmarshal(e.Input, &in) // a bad input names no file
	for _, p := range []string{in.FilePath, in.NotebookPath, in.Path} {
		if p != "" {
			return p
		}
	}
	return ""
}

// patchFiles lists the files an apply_patch envelope names.
func patchFiles(patch string) []fileTouch {
	var out []fileTouch
	for line := range strings.SplitSeq(patch, "\n") {
		path, op, ok := editdiff.PatchHeader(strings.TrimRight(line, "\r"))
		if !ok || path == "" {
			continue
		}
		action := ActionEdit
		switch op {
		case editdiff.PatchAdd:
			action = ActionCreate
		case editdiff.PatchDelete:
			action = ActionDelete
		}
		out = append(out, fileTouch{path, action})
	}
	return out
}

// ShellCommand returns a shell tool call's command (input command or cmd,
// a string or an argv), "" for other calls.
func ShellCommand(input json.RawMessage) string { return commandOf(input) }

// commandOf returns a shell call's command: the input's command as a
// string, or its argv joined by spaces.
func commandOf(input json.RawMessage) string {
	if len(input) == 0 || input[0] != '{' || !bytes.Contains(input, []byte(`"cmd`)) && !bytes.Contains(input, []byte(`"command"`)) {
		return ""
	}
	var in struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{in.Command, in.Cmd} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
			return strings.Join(argv, " ")
		}
	}
	return ""
}

// RelPath makes path relative to the first of dirs it lies in, with
// forward slashes; other paths are returned cleaned. The files table holds
// paths made so, against the session's folder and the worktree.
func RelPath(path string, dirs ...string) string {
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) {
		return filepath.ToSlash(path)
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if r, err := filepath.Rel(filepath.Clean(d), path); err == nil && !outside(r) {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(path)
}

// outside reports whether rel, made by filepath.Rel, leads out of its
// folder. A backslash counts as a separator everywhere: on Windows it is
// one, and elsewhere a name holding one keeps its absolute path.
func outside(rel string) bool {
	rel = strings.ReplaceAll(rel, `\`, "/")
	return rel == ".." || strings.HasPrefix(rel, "../")
}

// The kinds of a ref.
const (
	RefPR     = "pr"
	RefIssue  = "issue"
	RefCommit = "commit"
	RefBranch = "branch"
	RefURL    = "url"
)

// Ref is one pull request, issue, commit, branch or URL a session mentions.
type Ref struct {
	Kind  string `json:"kind"`
	Value string `json:"value"` // owner/repo#N, a commit hash, a branch name, a URL
	URL   string `json:"url"`   // where it opens; "" when not known
}

var (
	reGitHub = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`https?://github\.com/([\w.-]+)/([\w.-]+)/(pull|issues)/(\d+)`)
	})
	reGitLab = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`https?://(gitlab\.[\w.-]+)/([\w.-]+(?:/[\w.-]+)+?)/-/(merge_requests|issues)/(\d+)`)
	})
	// A URL ends at white space, brackets, quotes (typographic ones too:
	// “see https://x.dev”) and backquotes; none of them is left unencoded
	// in one.
	reURL = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`https?://[^\s<>"'()\[\]{}“”‘’«»` + "`" + `]+`)
	})
	reBareRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(PR|pull request|MR|merge request|issue)\s*#(\d+)\b`)
	})
	reCommit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[([\w./-]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\]`)
	})
	reCheckout = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bgit\s+(?:checkout\s+-[bB]|switch\s+-[cC])\s+([\w./-]+)`)
	})
	rePush = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bgit\s+push\b((?:\s+-{1,2}[\w-]+)*)\s+([\w.-]+)\s+([\w./:+-]+)`)
	})
)

// remote is a worktree's origin: host and owner/repo.
type remote struct {
	host, repo string
}

// refsIn finds the refs in text. fromGit is set for git's own output
// (tool results), where "[branch hash]" names a commit; command is set for
// a shell command, where checkout -b and push name branches. Cheap scans
// come first: most texts hold no ref, and the regular expressions cost
// more than those scans.
func refsIn(text string, fromGit, command bool, rem func() remote) []Ref {
	var out []Ref
	if strings.Contains(text, "://") {
		out = urlRefs(text)
	}
	if hashDigit(text) {
		out = append(out, bareRefs(text, rem)...)
	}
	if fromGit && strings.Contains(text, "] ") {
		for _, m := range reCommit().FindAllStringSubmatch(text, -1) {
			out = append(out, Ref{RefCommit, m[2], commitURL(rem(), m[2])})
		}
	}
	if command && strings.Contains(text, "git") {
		out = append(out, branchRefs(text)...)
	}
	return out
}

// urlTrailing is what ends a sentence or a markdown emphasis after a URL
// rather than the URL: "see https://x.dev." and "**https://x.dev**".
const urlTrailing = ".,;:!?*~"

// urlRefs finds GitHub and GitLab PR and issue URLs, and other URLs.
func urlRefs(text string) []Ref {
	var out []Ref
	covered := map[string]bool{}
	for _, m := range reGitHub().FindAllStringSubmatch(text, -1) {
		kind := RefIssue
		if m[3] == "pull" {
			kind = RefPR
		}
		covered[m[0]] = true
		out = append(out, Ref{kind, m[1] + "/" + m[2] + "#" + m[4], m[0]})
	}
	for _, m := range reGitLab().FindAllStringSubmatch(text, -1) {
		kind := RefIssue
		if m[3] == "merge_requests" {
			kind = RefPR
		}
		covered[m[0]] = true
		out = append(out, Ref{kind, m[2] + "#" + m[4], m[0]})
	}
	for _, u := range reURL().FindAllString(text, -1) {
		u = strings.TrimRight(u, urlTrailing)
		if covered[u] || coveredPrefix(u, covered) {
			continue
		}
		out = append(out, Ref{RefURL, u, u})
	}
	return out
}

// bareRefs finds "#123" next to PR, MR or issue, resolved against the
// worktree's remote when it has one.
func bareRefs(text string, rem func() remote) []Ref {
	var out []Ref
	for _, m := range reBareRef().FindAllStringSubmatch(text, -1) {
		kind := RefIssue
		switch strings.ToLower(m[1]) {
		case "pr", "pull request", "mr", "merge request":
			kind = RefPR
		}
		r := rem()
		if r.repo == "" {
			out = append(out, Ref{kind, "#" + m[2], ""})
			continue
		}
		out = append(out, Ref{kind, r.repo + "#" + m[2], refURL(r, kind, m[2])})
	}
	return out
}

// branchRefs finds the branches a shell command creates or pushes.
func branchRefs(cmd string) []Ref {
	var out []Ref
	for _, m := range reCheckout().FindAllStringSubmatch(cmd, -1) {
		out = append(out, Ref{RefBranch, m[1], ""})
	}
	for _, m := range rePush().FindAllStringSubmatch(cmd, -1) {
		b := m[3]
		if i := strings.IndexByte(b, ':'); i >= 0 {
			b = b[i+1:]
		}
		b = strings.TrimPrefix(b, "+")
		if b != "" && b != "HEAD" {
			out = append(out, Ref{RefBranch, b, ""})
		}
	}
	return out
}

// hashDigit reports whether text holds "#" followed by a digit.
func hashDigit(text string) bool {
	for i := strings.IndexByte(text, '#'); i >= 0 && i+1 < len(text); {
		if c := text[i+1]; c >= '0' && c <= '9' {
			return true
		}
		j := strings.IndexByte(text[i+1:], '#')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

func coveredPrefix(u string, covered map[string]bool) bool {
	for c := range covered {
		if strings.HasPrefix(u, c) {
			return true
		}
	}
	return false
}

// refURL is the web address of PR or issue n of r.
func refURL(r remote, kind, n string) string {
	base := "https://" + r.host + "/" + r.repo
	switch {
	case r.host == "github.com" && kind == RefPR:
		return base + "/pull/" + n
	case r.host == "github.com":
		return base + "/issues/" + n
	case kind == RefPR:
		return base + "/-/merge_requests/" + n
	}
	return base + "/-/issues/" + n
}

// commitURL is the web address of commit hash on r when r is on GitHub
// or GitLab; "" otherwise (the hash is copied instead).
func commitURL(r remote, hash string) string {
	switch {
	case r.repo == "":
		return ""
	case r.host == "github.com":
		return "https://github.com/" + r.repo + "/commit/" + hash
	case r.host == "gitlab.com" || strings.HasPrefix(r.host, "gitlab."):
		return "https://" + r.host + "/" + r.repo + "/-/commit/" + hash
	}
	return ""
}

var reRemote = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:https?://|ssh://)?(?:[^@/]+@)?([\w.-]+)[:/](.+?)(?:\.git)?/?$`)
})

// gitRemote reads the origin remote of the git worktree dir; the zero
// remote when there is none.
func gitRemote(dir string) remote {
	out, err := exec.Command("git", "-C", dir, "remote", "get-url", "origin").Output()
	if err != nil {
		return remote{}
	}
	return parseRemote(strings.TrimSpace(string(out)))
}

// parseRemote reads a remote URL: https://host/owner/repo(.git) or
// git@host:owner/repo(.git).
func parseRemote(u string) remote {
	m := reRemote().FindStringSubmatch(u)
	if m == nil {
		return remote{}
	}
	return remote{host: m[1], repo: m[2]}
}
