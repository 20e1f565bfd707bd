package chronicle

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lazuli-app/lazuli/safelink"
)

// Cite points at an event of a session: written [S12#340] in a report
// (session 12, event seq 340), [S12] for a whole session, and
// [S12#340@2] for a session of the second store when a report covers
// several.
type Cite struct {
	Store   int // index into the sources
	Session int64
	Seq     int64 // 0: the session as a whole
}

// String is the citation as a report writes it.
func (c Cite) String() string {
	var b strings.Builder
	b.WriteString("[S")
	b.WriteString(strconv.FormatInt(c.Session, 10))
	if c.Seq > 0 {
		b.WriteByte('#')
		b.WriteString(strconv.FormatInt(c.Seq, 10))
	}
	if c.Store > 0 {
		b.WriteByte('@')
		b.WriteString(strconv.Itoa(c.Store + 1))
	}
	b.WriteByte(']')
	return b.String()
}

// MarshalText writes the citation as a report does, so the facts given to
// an agent hold citations it can copy.
func (c Cite) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// reCite finds citations; one followed by "(" is already a link.
var reCite = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[S(\d{1,18})(?:#(\d{1,18}))?(?:@(\d{1,4}))?\]`) })

// citesIn lists the citations in text with their byte ranges.
func citesIn(text string) ([]Cite, [][2]int) {
	var cites []Cite
	var at [][2]int
	for _, m := range reCite().FindAllStringSubmatchIndex(text, -1) {
		if m[1] < len(text) && text[m[1]] == '(' {
			continue
		}
		var c Cite
		c.Session, _ = strconv.ParseInt(text[m[2]:m[3]], 10, 64) // \d{1,18} always parses
		if m[4] >= 0 {
			c.Seq, _ = strconv.ParseInt(text[m[4]:m[5]], 10, 64)
		}
		if m[6] >= 0 {
			n, _ := strconv.Atoi(text[m[6]:m[7]])
			c.Store = n - 1
		}
		cites = append(cites, c)
		at = append(at, [2]int{m[0], m[1]})
	}
	return cites, at
}

// Checked is a report's citations, each checked against the stores.
type Checked struct {
	Resolved   []Cite
	Unresolved []Cite
}

// Check verifies every citation of text: its store is one of the sources,
// its session is there and (when it names one) so is its event. A
// citation of a whole session checks its first event.
func Check(ctx context.Context, sources []Source, text string) (Checked, error) {
	var out Checked
	cites, _ := citesIn(text)
	type key struct {
		store   int
		session int64
	}
	wanted := map[key][]int64{}
	var order []Cite
	seen := map[Cite]bool{}
	for _, c := range cites {
		if seen[c] {
			continue
		}
		seen[c] = true
		order = append(order, c)
		if c.Store >= 0 && c.Store < len(sources) && c.Session > 0 {
			wanted[key{c.Store, c.Session}] = append(wanted[key{c.Store, c.Session}], max(c.Seq, 1))
		}
	}
	found := map[key]map[int64]bool{}
	for k, seqs := range wanted {
		got, err := sources[k.store].Store.Events().ExistingSeqs(ctx, k.session, seqs)
		if err != nil {
			return out, fmt.Errorf("check citations: %w", err)
		}
		found[k] = got
	}
	for _, c := range order {
		if found[key{c.Store, c.Session}][max(c.Seq, 1)] {
			out.Resolved = append(out.Resolved, c)
		} else {
			out.Unresolved = append(out.Unresolved, c)
		}
	}
	return out, nil
}

// Sessions lists the sessions cited, as S12 (S12@2 for another store),
// sorted and without repeats.
func (c Checked) Sessions() []string {
	var out []string
	for _, x := range c.Resolved {
		s := "S" + strconv.FormatInt(x.Session, 10)
		if x.Store > 0 {
			s += "@" + strconv.Itoa(x.Store+1)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// URLScheme is the scheme of Lazuli's links, the one safelink sends to
// Lazuli itself.
const URLScheme = safelink.LazuliScheme

// Link returns the lazuli:// link that opens a store at a session and
// event (event 0: the session's end).
func Link(path string, session, event int64) string {
	q := url.Values{"path": {path}, "session": {strconv.FormatInt(session, 10)}}
	if event > 0 {
		q.Set("event", strconv.FormatInt(event, 10))
	}
	return URLScheme + "://open?" + q.Encode()
}

// Legend is the line that explains the citations of a report, as plain
// text ("" when text cites nothing): S12#340 is event 340 of session S12,
// S12 the whole session and, when the report covers several stores, @N
// the N-th of sources (each named by its worktree's folder; @1 is left
// out).
func Legend(sources []Source, text string) string {
	return legend(sources, text, func(p string) string { return p })
}

// legendMarkdown is Legend as the report's last line: in italics, the
// folders as code.
func legendMarkdown(sources []Source, text string) string {
	l := legend(sources, text, func(p string) string { return "`" + strings.ReplaceAll(p, "`", "'") + "`" })
	if l == "" {
		return ""
	}
	return "*" + l + "*"
}

func legend(sources []Source, text string, folder func(string) string) string {
	if cites, _ := citesIn(text); len(cites) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Citations: S12#340 is event 340 of session S12 and S12 the whole session; each opens the transcript there.")
	if len(sources) > 1 {
		b.WriteString(" @N names the worktree when the report covers several:")
		for i, src := range sources {
			sep := ","
			if i == len(sources)-1 {
				sep = "."
			}
			fmt.Fprintf(&b, " @%d %s%s", i+1, folder(worktreeDir(src.Store.Path())), sep)
		}
		b.WriteString(" No @ is @1.")
	}
	return b.String()
}

// worktreeDir is the folder of the worktree whose store is at storePath
// (<worktree>/.azureal/sessions.azs), or the store's folder.
func worktreeDir(storePath string) string {
	dir := filepath.Dir(storePath)
	if filepath.Base(dir) == ".azureal" {
		return filepath.Dir(dir)
	}
	return dir
}

// Render turns the citations of text into Markdown links to the session
// and event, and marks the unresolved ones: **S99#4 ⚠ not found**.
func Render(sources []Source, text string, checked Checked) string {
	bad := map[Cite]bool{}
	for _, c := range checked.Unresolved {
		bad[c] = true
	}
	cites, at := citesIn(text)
	var b strings.Builder
	last := 0
	for i, c := range cites {
		b.WriteString(text[last:at[i][0]])
		label := strings.Trim(c.String(), "[]")
		if bad[c] || c.Store < 0 || c.Store >= len(sources) {
			fmt.Fprintf(&b, "**%s ⚠ not found**", label)
		} else {
			fmt.Fprintf(&b, "[%s](%s)", label, Link(sources[c.Store].Store.Path(), c.Session, c.Seq))
		}
		last = at[i][1]
	}
	b.WriteString(text[last:])
	return b.String()
}
