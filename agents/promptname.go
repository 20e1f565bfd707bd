package agents

import (
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// SessionNameMax is the length, in characters, of a session name taken from
// a prompt.
const SessionNameMax = 60

// PromptName is the name a session takes from its first prompt when the
// user gave none, for every path that creates one (an import, the native
// history, a run started in the window or by lazuli run): the first line of
// the prompt cleaned by PromptText, shortened to SessionNameMax
// characters; "" when nothing is left.
func PromptName(prompt string) string {
	t, _ := PromptText(prompt)
	return Shorten(t, SessionNameMax)
}

// ideBlocks are the context blocks Claude Code's IDE integrations put in
// front of a prompt.
var ideBlocks = []string{"ide_opened_file", "ide_selection", "ide_diagnostics"}

// PromptText cleans a stored prompt for a preview or a name: IDE context blocks and
// image placeholders removed, a slash command shown as "/name args" and a
// shell command as "! command". typed is false for those commands, for an
// interruption (codec.IsInterruption) and for text left empty.
func PromptText(s string) (text string, typed bool) {
	if codec.IsInterruption(s) {
		return strings.TrimSpace(s), false
	}
	for _, tag := range ideBlocks {
		s = cutBlocks(s, "<"+tag+">", "</"+tag+">")
	}
	if name, ok := tagText(s, "command-name"); ok {
		args, _ := tagText(s, "command-args")
		return strings.TrimSpace(name + " " + args), false
	}
	if cmd, ok := tagText(s, "bash-input"); ok {
		return "! " + strings.TrimSpace(cmd), false
	}
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "[image]" && !strings.HasPrefix(t, "<local-command-") {
			lines = append(lines, line)
		}
	}
	s = strings.TrimSpace(strings.Join(lines, "\n"))
	if tag, ok := leadingTag(s); ok { // output of a command, a notification, …
		return strings.TrimSpace(cutBlocks(s, "<"+tag+">", "</"+tag+">")), false
	}
	return s, s != ""
}

// leadingTag returns the name of the XML-like tag s starts with, such as
// bash-stdout in "<bash-stdout>…".
func leadingTag(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "<")
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(rest, ">")
	if !ok || name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz-_") != "" {
		return "", false
	}
	return name, true
}

// cutBlocks removes every open…close block from s.
func cutBlocks(s, open, close string) string {
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], close)
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len(close):]
	}
}

// tagText returns the text inside the first <tag>…</tag> of s.
func tagText(s, tag string) (string, bool) {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return "", false
	}
	inner, _, ok := strings.Cut(rest, "</"+tag+">")
	return inner, ok
}
