package export

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/display"
)

// Location is where one occurrence of a possible secret is.
type Location struct {
	// Seq is the event's seq; for a compaction summary, the last seq the
	// summary covers; 0 for the session's own fields (its name).
	Seq int64 `json:"seq"`
	// Field names the text, e.g. "prompt", "Bash command", "Bash result",
	// "Edit new_string", "compaction summary", "session name".
	Field string `json:"field"`
	// Line is the 1-based line of the text where the secret starts.
	Line int `json:"line"`
	// Start and End are the secret's byte range in the text.
	Start int `json:"start"`
	End   int `json:"end"`
	text  int // the text's number in walk order
}

// String formats l for people: "#120 · Bash result, line 3".
func (l Location) String() string {
	where := l.Field
	if l.Seq > 0 {
		where = fmt.Sprintf("#%d · %s", l.Seq, l.Field)
	}
	if l.Line > 1 {
		where += fmt.Sprintf(", line %d", l.Line)
	}
	return where
}

// Finding is one possible secret: every occurrence of the same value.
type Finding struct {
	Rule        string `json:"rule"`        // the rule's id, e.g. "aws-access-key-id"
	Description string `json:"description"` // e.g. "AWS access key ID"
	// Preview shows the secret masked: at most its first 4 characters
	// (fewer for a short one) and its length, e.g. "AKIA…(20 chars)".
	Preview   string     `json:"preview"`
	Count     int        `json:"count"`     // occurrences
	Locations []Location `json:"locations"` // in export order
	secret    string
}

// Report is what Scan found in a Source.
type Report struct {
	Findings []Finding // in the order of their first occurrence
	Texts    int       // texts scanned
	Bytes    int64     // bytes scanned
	ranges   map[int][]span
}

// Occurrences counts the occurrences of all findings.
func (rep Report) Occurrences() int {
	n := 0
	for _, f := range rep.Findings {
		n += f.Count
	}
	return n
}

// minText is the shortest text a secret can be found in.
const minText = 8

// minEcho is the shortest secret that is also looked for as a plain value
// in texts where no rule found it.
const minEcho = 8

// Scan looks for possible secrets in every text an export of src contains:
// the session's name, worktree and Claude session id, every string field
// of every event (prompts, assistant text, tool names, paths, every string
// inside a tool input, tool results, hook output, plans), and compaction
// summaries. A secret a rule found anywhere is then also found wherever
// else its value occurs. The same value is one Finding however often it
// occurs.
func Scan(src Source) Report {
	rep := Report{ranges: map[int][]span{}}
	var ts textScanner
	byValue := map[string]int{} // secret -> index in rep.Findings
	texts := 0
	walk(src, false, func(idx int, t text) string {
		texts++
		rep.Bytes += int64(len(t.s))
		for _, sp := range ts.scan(t.s) {
			rep.add(byValue, idx, t, sp)
		}
		return t.s
	})
	rep.Texts = texts
	if len(rep.Findings) > 0 {
		rep.echo(src, byValue)
	}
	return rep
}

// add records the occurrence sp of text t (number idx).
func (rep *Report) add(byValue map[string]int, idx int, t text, sp span) {
	secret := t.s[sp.start:sp.end]
	fi, ok := byValue[secret]
	if !ok {
		r := &rules[sp.rule]
		fi = len(rep.Findings)
		byValue[secret] = fi
		rep.Findings = append(rep.Findings, Finding{Rule: r.id, Description: r.desc, Preview: preview(r.id, secret), secret: secret})
	}
	f := &rep.Findings[fi]
	sp.rule = ruleIndex(f.Rule) // one value, one rule: the first that found it
	f.Count++
	f.Locations = append(f.Locations, Location{
		Seq: t.seq, Field: t.label(), Line: 1 + strings.Count(t.s[:sp.start], "\n"), Start: sp.start, End: sp.end, text: idx,
	})
	rep.ranges[idx] = append(rep.ranges[idx], sp)
}

// echo finds the values of the findings in the texts where no rule found
// them, so that an AWS secret key printed on its own, or a password also
// typed in a prompt, is reported and redacted too.
func (rep *Report) echo(src Source, byValue map[string]int) {
	var values []string
	for v := range byValue {
		if len(v) >= minEcho {
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		return
	}
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) }) // longest first
	walk(src, false, func(idx int, t text) string {
		for _, v := range values {
			for from := 0; ; {
				i := strings.Index(t.s[from:], v)
				if i < 0 {
					break
				}
				sp := span{start: from + i, end: from + i + len(v)}
				from = sp.end
				if !overlaps(rep.ranges[idx], sp) {
					rep.add(byValue, idx, t, sp)
				}
			}
		}
		if r := rep.ranges[idx]; len(r) > 1 {
			slices.SortFunc(r, func(a, b span) int { return a.start - b.start })
		}
		return t.s
	})
	for i := range rep.Findings {
		f := &rep.Findings[i]
		slices.SortFunc(f.Locations, func(a, b Location) int {
			if a.text != b.text {
				return a.text - b.text
			}
			return a.Start - b.Start
		})
	}
}

// preview masks a secret: at most its first 4 characters, fewer for a
// short one so that at least three quarters stay hidden, then its length.
// A private key shows its BEGIN line, which is not secret.
func preview(ruleID, secret string) string {
	n := utf8.RuneCountInString(secret)
	if ruleID == "private-key" {
		head, _, _ := strings.Cut(secret, "\n")
		if m := privateKeyHead().FindString(head); m != "" {
			return m + "…(" + display.Count(n) + " chars)"
		}
	}
	show := min(4, n/4)
	i := 0
	for k := 0; k < show; k++ {
		_, size := utf8.DecodeRuneInString(secret[i:])
		i += size
	}
	return secret[:i] + "…(" + display.Count(n) + " chars)"
}

func overlaps(spans []span, sp span) bool {
	for _, o := range spans {
		if sp.start < o.end && o.start < sp.end {
			return true
		}
	}
	return false
}

// textScanner runs the rules over texts, reusing its buffers.
type textScanner struct {
	t     hitText
	spans []span
}

// scan returns the secrets found in s, ordered by offset, not overlapping.
// The result is valid until the next call.
func (ts *textScanner) scan(s string) []span {
	ts.spans = ts.spans[:0]
	if len(s) < minText {
		return nil
	}
	t := &ts.t
	t.reset(s)
	for i := range rules {
		r := &rules[i]
		if !r.always && !t.anyHit(r) {
			continue
		}
		var found []span
		switch {
		case r.find != nil:
			found = r.find(t, r)
		case r.assign != nil:
			found = findAssignments(t, r)
		default:
			found = matchAnchored(t, r)
		}
		for _, sp := range found {
			sp.rule = i
			if !overlaps(ts.spans, sp) {
				ts.spans = append(ts.spans, sp)
			}
		}
	}
	slices.SortFunc(ts.spans, func(a, b span) int { return a.start - b.start })
	return ts.spans
}
