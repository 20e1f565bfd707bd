package search

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
)

// queryCases are the parser's table; FuzzParseQuery seeds from it.
var queryCases = []struct {
	name  string
	in    string
	terms []string
	grams []string // the index lookup: 4-grams, and a term of three bytes as the start of one
	err   error
}{
	{name: "Empty", in: "", err: ErrEmptyQuery},
	{name: "Blank", in: " \t\n", err: ErrEmptyQuery},
	{name: "NUL only", in: "\x00", err: ErrEmptyQuery},
	{name: "OneLetter", in: "a", err: ErrShortQuery},
	{name: "OneLetterWords", in: "a b c", err: ErrShortQuery},
	{name: "OneRune", in: "é", err: ErrShortQuery},
	{name: "TwoLetters", in: "Go", terms: []string{"go"}},
	{name: "Three", in: "Err", terms: []string{"err"}, grams: []string{"err"}},
	{name: "Words", in: "parse  Error", terms: []string{"parse", "error"},
		grams: []string{"pars", "arse", "erro", "rror"}},
	{name: "Duplicate", in: "abc ABC", terms: []string{"abc"}, grams: []string{"abc"}},
	{name: "Phrase", in: `"go test"`, terms: []string{"go test"}, grams: []string{"go t", "o te", " tes", "test"}},
	{name: "QuoteInside", in: `say "hi"`, terms: []string{"say", `"hi"`}, grams: []string{"say", `"hi"`}},
	{name: "LoneQuote", in: `"`, err: ErrShortQuery},
	{name: "QuotesOnly", in: `""`, terms: []string{`""`}},
	{name: "Star", in: "a*b", terms: []string{"a*b"}, grams: []string{"a*b"}},
	{name: "AND", in: "AND", terms: []string{"and"}, grams: []string{"and"}},
	{name: "NEAR", in: "NEAR(x", terms: []string{"near(x"}, grams: []string{"near", "ear(", "ar(x"}},
	{name: "Minus", in: "-foo", terms: []string{"-foo"}, grams: []string{"-foo"}},
	{name: "Colon", in: "text:x", terms: []string{"text:x"}, grams: []string{"text", "ext:", "xt:x"}},
	{name: "Parens", in: "(a)", terms: []string{"(a)"}, grams: []string{"(a)"}},
	{name: "Caret", in: "^abc", terms: []string{"^abc"}, grams: []string{"^abc"}},
	{name: "Unicode", in: "ÄBC", terms: []string{"äbc"}, grams: []string{"äbc"}},                                    // 4 bytes
	{name: "UnicodeThreeRunes", in: "ÄÖÜ", terms: []string{"äöü"}, grams: []string{"äö", "\xa4\xc3\xb6\xc3", "öü"}}, // six bytes
	{name: "TooLong", in: strings.Repeat("x", maxQueryBytes+1), err: ErrLongQuery},
}

// gramParts is the lookup of grams: each one's 4-gram, for three bytes the
// range of the 256 4-grams that start with them.
func gramParts(grams []string) []gramRange {
	var parts []gramRange
	for _, g := range grams {
		b := []byte(g)
		if len(b) == 3 {
			lo := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8
			parts = append(parts, gramRange{lo, lo + 255})
			continue
		}
		v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
		parts = append(parts, gramRange{v, v})
	}
	return parts
}

func TestParseQuery(t *testing.T) {
	for _, tc := range queryCases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := parseQuery(tc.in)
			if !errors.Is(err, tc.err) {
				t.Fatalf("parseQuery(%q) error = %v, want %v", tc.in, err, tc.err)
			}
			if err != nil {
				return
			}
			if strings.Join(q.terms, "|") != strings.Join(tc.terms, "|") {
				t.Errorf("parseQuery(%q) terms = %q, want %q", tc.in, q.terms, tc.terms)
			}
			if want := gramParts(tc.grams); !slices.Equal(q.parts, want) {
				t.Errorf("parseQuery(%q) parts = %x, want %x", tc.in, q.parts, want)
			}
		})
	}
}

func TestPickGramsLongTerm(t *testing.T) {
	term := strings.Repeat("abcdefghij", 5)
	grams := pickGrams(term)
	if len(grams) != maxTermGrams || grams[0] != "abcd" || grams[len(grams)-1] != "ghij" {
		t.Errorf("pickGrams(50 letters) = %q, want %d from first to last", grams, maxTermGrams)
	}
	// bytes, not characters: "äöü" is six bytes, three 4-grams
	if got := pickGrams("äöü"); len(got) != 3 || got[0] != "äö" || got[2] != "öü" {
		t.Errorf("pickGrams(äöü) = %q", got)
	}
}

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"abc", "abc"}, {"ABC def", "abc def"}, {"ÄÖÜ", "äöü"}, {"İx", "ix"}, {"ΣΟΦΊΑ", "σοφία"},
	} {
		got, off := fold(tc.in)
		if got != tc.want {
			t.Errorf("fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if off != nil && (len(off) != len(got)+1 || int(off[len(got)]) != len(tc.in)) {
			t.Errorf("fold(%q) offsets = %v", tc.in, off)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		query, text string
		ok          bool
		first       string // the text at the reported range
	}{
		{"parser", "The Parser failed", true, "Parser"},
		{"fail pars", "The Parser failed", true, "Pars"},
		{"fail xyz", "The Parser failed", false, ""},
		{`"parser failed"`, "The PARSER FAILED", true, "PARSER FAILED"},
		{`"parser failed"`, "failed parser", false, ""},
		{"äbc", "xx ÄBC yy", true, "ÄBC"},
		{"İx", "İX", true, "İX"},
		{"ix", "İX", false, ""}, // ASCII words match ASCII letters only
		{"σοφία", "ΣΟΦΊΑ", true, "ΣΟΦΊΑ"},
		{`"hi"`, `say "hi" now`, true, "hi"},
		{`say "hi"`, `say "hi" now`, true, "say"},
		{"a*b", "x a*b y", true, "a*b"},
	} {
		q, err := parseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		s, e, ok := q.match(tc.text)
		if ok != tc.ok || (ok && tc.text[s:e] != tc.first) {
			t.Errorf("query %q on %q = [%d,%d) %v, want %q %v", tc.query, tc.text, s, e, ok, tc.first, tc.ok)
		}
	}
}

func TestIndexFoldASCII(t *testing.T) {
	for _, tc := range []struct {
		s, t string
		want int
	}{
		{"hello", "", 0}, {"", "a", -1}, {"Hello", "hello", 0}, {"xxHeLLo", "hello", 2},
		{"aAb", "ab", 1}, {"helo hello", "hello", 5}, {"ab", "abc", -1}, {"1-2", "-2", 1},
		{"héllo hello", "hello", 7},
	} {
		if got := indexFoldASCII(tc.s, tc.t); got != tc.want {
			t.Errorf("indexFoldASCII(%q, %q) = %d, want %d", tc.s, tc.t, got, tc.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor ", 30)
	text := long + "the NEEDLE is here\n\nand\tthen " + long
	q, _ := parseQuery("needle")
	s, e, ok := q.match(text)
	if !ok {
		t.Fatal("no match")
	}
	snip, hl := q.makeSnippet(text, s, e)
	if !strings.HasPrefix(snip, ellipsis) || !strings.HasSuffix(snip, ellipsis) {
		t.Errorf("snippet %q lacks the ellipses", snip)
	}
	if n := utf8.RuneCountInString(snip); n > snippetRunes+10 || n < snippetRunes/2 {
		t.Errorf("snippet has %d characters: %q", n, snip)
	}
	if strings.ContainsAny(snip, "\n\t") || strings.Contains(snip, "  ") {
		t.Errorf("snippet %q is not one line", snip)
	}
	if len(hl) != 1 || snip[hl[0][0]:hl[0][1]] != "NEEDLE" {
		t.Errorf("highlights %v of %q, want NEEDLE", hl, snip)
	}
	// A short text is shown whole, every occurrence highlighted.
	q, _ = parseQuery("ab")
	snip, hl = q.makeSnippet("Ab x aB", 0, 2)
	if snip != "Ab x aB" || len(hl) != 2 || hl[1] != [2]int{5, 7} {
		t.Errorf("makeSnippet = %q %v", snip, hl)
	}
	// Highlights are byte ranges on rune boundaries in non-ASCII text.
	q, _ = parseQuery("straße")
	text = strings.Repeat("ü", 100) + " STRASSE Straße " + strings.Repeat("ö", 100)
	s, e, _ = q.match(text)
	snip, hl = q.makeSnippet(text, s, e)
	if len(hl) != 1 || snip[hl[0][0]:hl[0][1]] != "Straße" || !utf8.ValidString(snip) {
		t.Errorf("makeSnippet = %q %v", snip, hl)
	}
}

func TestEventText(t *testing.T) {
	path := "/src/frob.go"
	for _, tc := range []struct {
		name string
		ev   codec.Event
		want string
	}{
		{"User", codec.UserMessage("fix it"), "fix it"},
		{"UserInjected", codec.UserMessage(codec.ContextOpenTag + "old\n" + codec.ContextCloseTag + "\n\nfix it"), "fix it"},
		{"UserOnlyContext", codec.UserMessage(codec.ContextOpenTag + "old"), ""},
		{"Assistant", codec.AssistantText("**done**"), "**done**"},
		{"Plan", codec.Plan("p", "step"), "p\nstep"},
		{"Bash", codec.ToolCall("t", "Bash", nil, json.RawMessage(`{"command":"go test ./...","timeout":5}`)), "Bash\ngo test ./..."},
		{"Edit", codec.ToolCall("t", "Edit", &path, json.RawMessage(`{"file_path":"/src/frob.go","old_string":"a\tb\n\"q\"","new_string":"\u00e9\ud83d\ude00 \/x"}`)),
			"Edit\n/src/frob.go\na\tb\n\"q\"\né😀 /x"},
		{"PathOutsideInput", codec.ToolCall("t", "Read", &path, json.RawMessage(`{"limit":3}`)), "Read\n/src/frob.go"},
		{"Nested", codec.ToolCall("t", "X", nil, json.RawMessage(`{"a":["one",{"k":"two"}],"b":{"c" : "three"}}`)), "X\none\ntwo\nthree"},
		{"BadEscape", codec.ToolCall("t", "X", nil, json.RawMessage(`{"a":"\ud800x\u12"}`)), "X\n\uFFFDx\uFFFD12"},
		{"Result", codec.ToolResult("t", "Bash", nil, "ok", false), "ok"},
		{"Hook", codec.Hook("Stop", "out"), "Stop\nout"},
		{"Command", codec.Command("/compact"), "/compact"},
		{"Init", codec.Init("/w", "opus"), ""},
		{"Complete", codec.Complete(true, 1, 0), ""},
		{"ModelSwitch", codec.ModelSwitch("opus"), ""},
		{"Unit", codec.Unit(codec.KindCompacting), ""},
	} {
		if got := eventText(&tc.ev); got != tc.want {
			t.Errorf("%s: eventText = %q, want %q", tc.name, got, tc.want)
		}
	}
	big := codec.AssistantText(strings.Repeat("é", MaxEventText))
	if got := eventText(&big); len(got) > MaxEventText || !utf8.ValidString(got) || len(got) < MaxEventText-1 {
		t.Errorf("eventText of a long text: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}

// FuzzParseQuery checks that no input makes the parser, the matcher or the
// snippet fail, and that a matched term is highlighted on rune boundaries.
func FuzzParseQuery(f *testing.F) {
	for _, tc := range queryCases {
		f.Add(tc.in, "some text with ÄBC and \"hi\" NEAR(x a*b text:x")
	}
	f.Fuzz(func(t *testing.T, query, text string) {
		q, err := parseQuery(query)
		if err != nil {
			return
		}
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "")
		}
		s, e, ok := q.match(text)
		if !ok {
			return
		}
		if s < 0 || e > len(text) || s > e {
			t.Fatalf("match range [%d,%d) outside %d bytes", s, e, len(text))
		}
		snip, hl := q.makeSnippet(text, s, e)
		if !utf8.ValidString(snip) {
			t.Fatalf("snippet %q is not UTF-8", snip)
		}
		for _, r := range hl {
			if r[0] < 0 || r[1] > len(snip) || r[0] >= r[1] || !utf8.ValidString(snip[r[0]:r[1]]) {
				t.Fatalf("highlight %v of %q", r, snip)
			}
		}
	})
}
