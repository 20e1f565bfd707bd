package search

import (
	"strings"
	"testing"
)

// TestMatchJoined: matching and snippets of an event's own text and full
// text, kept apart, are those of the two joined (scannedText), whatever
// part the terms are in, and however far the snippet reaches.
func TestMatchJoined(t *testing.T) {
	long := strings.Repeat("filler words here ", 400) // 7,200 bytes
	spaces := strings.Repeat(" ", 5000)
	for _, tc := range []struct{ name, query, own, full string }{
		{"own only", "needle", "a needle in own", ""},
		{"full only", "needle", "", "a needle in full"},
		{"in own", "needle", "the needle", "more needle text"},
		{"in full", "needle", "nothing here", "the needle"},
		{"split terms", "alpha omega", "alpha first", "then omega"},
		{"earliest in full", "omega alpha", "xx alpha", "omega"},
		{"missing", "alpha zeta", "alpha", "beta"},
		{"phrase", `"go test"`, "run go", "test now; go test ./..."},
		{"non-ASCII", "ÉCOLE", "l'école", "rien"},
		{"non-ASCII in full", "straße", "nothing", "die STRASSE straße"},
		{"near the end of own", "needle", long + "needle", long},
		{"long own", "needle", "needle " + long, long},
		{"long full", "needle", "x", long + "needle" + long},
		{"long full alone", "needle", "", long + "needle" + long},
		{"spaces after the slack", "needle", "needle" + spaces, spaces + "tail"},
		{"spaces to the end", "needle", "x", "needle" + spaces},
		{"term with a line break", "\"a\nb\"", "xa", "bx"},
	} {
		q, err := parseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		joined := tc.own
		if tc.full != "" {
			joined = strings.TrimPrefix(tc.own+"\n"+tc.full, "\n")
			if tc.own == "" {
				joined = tc.full
			}
		}
		ws, we, wok := q.match(joined)
		s, e, ok := q.matchJoined(tc.own, tc.full)
		if s != ws || e != we || ok != wok {
			t.Errorf("%s: matchJoined(%q) = %d, %d, %v, want %d, %d, %v", tc.name, tc.query, s, e, ok, ws, we, wok)
			continue
		}
		if !ok {
			continue
		}
		wantSnip, wantHL := q.makeSnippet(joined, ws, we)
		snip, hl := q.makeSnippet(snippetText(tc.own, tc.full, e), s, e)
		if snip != wantSnip || len(hl) != len(wantHL) {
			t.Errorf("%s: snippet %q %v, want %q %v", tc.name, snip, hl, wantSnip, wantHL)
		}
	}
}

// TestOneLine: oneLine is strings.Fields joined by single spaces.
func TestOneLine(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a  b\t\nc\r\v\fd ", "x\u00a0y\u2003 z", "\u3000lead", "trail\u0085", "é  è", "a\x00b", "\xff \xfe"} {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
}
