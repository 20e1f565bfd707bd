// Package safelink decides what a link found in stored text may do when it
// is clicked: a transcript, a chronicle report or an export can hold any
// link an agent, a tool or a teammate wrote, and the desktop's opener
// (xdg-open) runs whatever handler a scheme names (file:, javascript:,
// ssh:, a custom scheme of another application).
//
// The policy, the same in the window, the exports and the chronicle:
// absolute http and https URLs with a host, and mailto URLs with an
// address, may be opened by the desktop ([Web]); lazuli:// links are opened
// by Lazuli itself, after the user has seen where they go ([Lazuli]);
// everything else is shown as text ([Text]): other schemes, scheme-relative
// (//host) and relative links, and any URL holding a control character,
// white space, an invisible formatting character (a bidirectional
// control, a zero-width space) or one of " ' < > \ `, which browsers and
// openers strip or reinterpret, so that what is checked is what would be
// opened.
//
// Classify decides for one link; Markdown applies the decision to Markdown
// that is viewed outside Lazuli (an export, a saved chronicle report),
// where only Web links stay links and raw HTML is shown as text.
//
// The functions are safe for concurrent use.
package safelink

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is what a link may do.
type Kind int

// The kinds of link.
const (
	Text   Kind = iota // shown as text, never opened
	Web                // http, https or mailto: the desktop may open it
	Lazuli             // lazuli://: opened inside Lazuli, after the user confirms
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Web:
		return "web"
	case Lazuli:
		return "lazuli"
	}
	return "text"
}

// LazuliScheme is the scheme of Lazuli's own links.
const LazuliScheme = "lazuli"

// Classify says what the link target raw may do. raw is the target as
// written (a Markdown destination, an autolink, a ref's address) or as
// net/url prints a parsed one.
func Classify(raw string) Kind {
	if raw == "" || !plain(raw) {
		return Text
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Text
	}
	// url.Parse lowercases the scheme; a scheme must also be what raw
	// starts with, so no prefix of any kind is skipped.
	if u.Scheme == "" || !strings.EqualFold(raw[:len(u.Scheme)], u.Scheme) || raw[len(u.Scheme)] != ':' {
		return Text
	}
	switch u.Scheme {
	case "http", "https":
		// A user name before the host ("https://github.com@evil.example")
		// is how a link pretends to go somewhere else.
		if u.Opaque != "" || u.Host == "" || u.User != nil || !strings.HasPrefix(raw[len(u.Scheme)+1:], "//") {
			return Text
		}
		if h := u.Hostname(); h == "" || strings.HasPrefix(h, ".") {
			return Text
		}
		return Web
	case "mailto":
		if u.Opaque == "" || strings.HasPrefix(u.Opaque, "/") {
			return Text
		}
		return Web
	case LazuliScheme:
		return Lazuli
	}
	return Text
}

// Opens reports whether the desktop may open raw: Classify(raw) == Web.
// An export keeps only these links.
func Opens(raw string) bool { return Classify(raw) == Web }

// plain reports whether s holds no byte or character a browser or an
// opener would strip or reinterpret.
func plain(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == 0x7f || strings.IndexByte("\"'<>\\`", c) >= 0 {
				return false
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			return false
		}
		if unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) ||
			r == 0x2028 || r == 0x2029 || r == 0xfeff {
			return false
		}
		i += w
	}
	return true
}
