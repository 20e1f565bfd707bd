package export

import "strings"

// RedactedMark returns what replaces a secret found by rule ruleID:
// "[REDACTED:aws-access-key-id]".
func RedactedMark(ruleID string) string { return "[REDACTED:" + ruleID + "]" }

// Redact returns a copy of src with every occurrence in rep replaced by
// RedactedMark of its rule; rep must be Scan(src). Inside a tool input
// only string values change, so the input stays valid JSON of the same
// shape. src itself, and the store it came from, are not modified. The
// copy's Redactions counts the replacements.
func Redact(src Source, rep Report) Source {
	if len(rep.ranges) == 0 {
		return src
	}
	n := 0
	out := walk(src, true, func(idx int, t text) string {
		spans := rep.ranges[idx]
		if len(spans) == 0 {
			return t.s
		}
		var b strings.Builder
		b.Grow(len(t.s))
		last := 0
		for _, sp := range spans {
			if sp.start < last || sp.end > len(t.s) {
				continue // not from Scan of this text
			}
			b.WriteString(t.s[last:sp.start])
			b.WriteString(RedactedMark(rules[sp.rule].id))
			last = sp.end
			n++
		}
		b.WriteString(t.s[last:])
		return b.String()
	})
	out.Redactions = src.Redactions + n
	return out
}
