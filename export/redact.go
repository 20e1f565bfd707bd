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

// RedactText returns s with every secret a Scan would find in it replaced
// by RedactedMark of its rule (a value found once is replaced wherever else
// it occurs in s), and how many it replaced. It is for text that leaves
// Lazuli outside an export: the history server's answers (package recall).
func RedactText(s string) (string, int) {
	var ts textScanner
	spans := ts.scan(s)
	if len(spans) == 0 {
		return s, 0
	}
	secrets := map[string]int{} // value -> rule
	for _, sp := range spans {
		if v := s[sp.start:sp.end]; len(v) >= minEcho {
			secrets[v] = sp.rule
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	n, last := 0, 0
	for _, sp := range spans {
		if sp.start < last {
			continue
		}
		b.WriteString(s[last:sp.start])
		b.WriteString(RedactedMark(rules[sp.rule].id))
		last = sp.end
		n++
	}
	b.WriteString(s[last:])
	out := b.String()
	for v, r := range secrets { // the same value where no rule saw it
		if c := strings.Count(out, v); c > 0 {
			out = strings.ReplaceAll(out, v, RedactedMark(rules[r].id))
			n += c
		}
	}
	return out, n
}
