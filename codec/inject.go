package codec

import (
	"strings"
	"unicode"
)

// Context-injection tags (spec §6.3). Lazuli prefixes every prompt after the
// first with the session history between these tags; the store and the user
// only ever see the clean prompt.
const (
	ContextOpenTag       = "<azureal-session-context>"
	ContextCloseTag      = "</azureal-session-context>"
	AutoContinueOpenTag  = "<azureal-internal-auto-continue>"
	AutoContinueCloseTag = "</azureal-internal-auto-continue>"
)

// StripInjectedContext removes an injected context prefix (spec §6.4): the
// text after the first closing tag with all leading newlines removed; "" if
// only the opening tag occurs; content unchanged otherwise.
func StripInjectedContext(content string) string {
	if i := strings.Index(content, ContextCloseTag); i >= 0 {
		return strings.TrimLeft(content[i+len(ContextCloseTag):], "\n")
	}
	if strings.Contains(content, ContextOpenTag) {
		return ""
	}
	return content
}

// IsHiddenCodexContext reports whether content is the AGENTS.md instructions
// message Codex sends as a user item.
func IsHiddenCodexContext(content string) bool {
	t := strings.TrimLeftFunc(content, unicode.IsSpace)
	return strings.HasPrefix(t, "# AGENTS.md instructions for ") && strings.Contains(t, "<INSTRUCTIONS>")
}

// IsInternalAutoContinue reports whether s is the hidden auto-continue prompt.
func IsInternalAutoContinue(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, AutoContinueOpenTag) && strings.HasSuffix(t, AutoContinueCloseTag)
}

// HasContextTag reports whether s contains either context tag.
func HasContextTag(s string) bool {
	return strings.Contains(s, ContextOpenTag) || strings.Contains(s, ContextCloseTag)
}

// SanitizeUserMessage returns the visible prompt of a user message and false
// when the message must not be shown at all (spec §6.4 sanitize): hidden Codex
// context, an auto-continue block, or a message that was only context.
func SanitizeUserMessage(content string) (string, bool) {
	if IsHiddenCodexContext(content) {
		return "", false
	}
	s := StripInjectedContext(content)
	if IsInternalAutoContinue(s) {
		return "", false
	}
	if s == "" && HasContextTag(content) {
		return "", false
	}
	return s, true
}
