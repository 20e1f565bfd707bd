package search

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

func TestGrams(t *testing.T) {
	var g gramSet
	for _, tc := range []struct {
		low  string
		want []string // the grams, in order of first occurrence
	}{
		{"", nil},
		{"ab", nil},
		{"abc", []string{"abc\x00"}},
		{"abcd", []string{"abcd", "bcd\x00"}},
		{"abababa", []string{"abab", "baba", "aba\x00"}}, // each once
		{"äb", []string{"äb\x00"}},                       // bytes: ä is two
	} {
		var want []uint32
		for _, gram := range tc.want {
			want = append(want, gramValue(gram))
		}
		if got := g.ofText(tc.low); !slices.Equal(got, want) {
			t.Errorf("ofText(%q) = %x, want %x", tc.low, got, want)
		}
	}
	// the table is reused: a long text after short ones, then a short one
	long := strings.Repeat("0123456789", 1000)
	if got := len(g.ofText(long)); got != 11 { // 10 grams of the cycle and the last one
		t.Errorf("ofText(long) has %d grams, want 11", got)
	}
	if got := g.ofText("xyz"); !slices.Equal(got, []uint32{gramValue("xyz\x00")}) {
		t.Errorf("ofText(xyz) after a long text = %x", got)
	}
}

// TestGramEdges: terms of three bytes, which the index looks up as the
// prefix of a 4-gram, are found at the end of a text and as a whole text;
// a term is found whatever its case and wherever it sits.
func TestGramEdges(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "s",
		codec.AssistantText("api"),
		codec.AssistantText("call the API"),
		codec.AssistantText("apiary keepers"),
		codec.AssistantText("Überprüfung läuft"),
		codec.AssistantText("ap i"),
	)
	x := mustIndex(t, st)
	for _, tc := range []struct {
		q    string
		hits int
	}{
		{"api", 3}, {"API", 3}, {"keepers", 1}, {"ers", 1}, {"ÜBERPRÜFUNG", 1}, {"ft", 1}, {"läu", 1},
		{"api keepers", 1}, {"apiz", 0}, {`"i a"`, 0}, {`"e api"`, 1},
	} {
		if got := len(mustSearch(t, x, tc.q).Hits); got != tc.hits {
			t.Errorf("Search(%q): %d hits, want %d", tc.q, got, tc.hits)
		}
	}
}

// TestAppendFold: indexing folds as queries and the checks of each hit do
// (fold), byte for byte, whatever the text: invalid UTF-8, letters whose
// lower case has another length, ASCII.
func TestAppendFold(t *testing.T) {
	for _, s := range []string{"", "ABC def", "Überprüfung ÄÖÜ", "\xff\xfeA\xc3", "İstanbul KELVIN \u212a", "ǅ ẞ Σ", strings.Repeat("Ab\u0130", 100),
		strings.Repeat("@AZ[`az{", 5) + "MiXeD CaSe 0123456789 ~\x7f\x00 ÄND MORE ASCII AFTER it", "ABCDEFGH\u00c9IJKLMNOPQRSTUVWXYZ"} {
		want, _ := fold(s)
		if got := string(appendFold(nil, s)); got != want {
			t.Errorf("appendFold(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzAppendFold(f *testing.F) {
	f.Add("Überprüfung \xff ABC")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := fold(s)
		if got := string(appendFold([]byte("x"), s)); got != "x"+want {
			t.Errorf("appendFold(%q) = %q, want %q", s, got[1:], want)
		}
	})
}

// TestGramsGrow: a text with many distinct 4-grams (the table doubles many
// times) gives each once, in order of first occurrence, as a map does.
func TestGramsGrow(t *testing.T) {
	var g gramSet
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{5000, 200_000, 30} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.Intn(20))
		}
		low := string(b)
		var want []uint32
		seen := map[uint32]bool{}
		for i := 0; i+gramBytes <= len(low)+1; i++ {
			w := low[i:min(i+gramBytes, len(low))]
			if len(w) < gramBytes {
				w += "\x00"
			}
			if v := gramValue(w); !seen[v] {
				seen[v] = true
				want = append(want, v)
			}
		}
		if got := g.ofText(low); !slices.Equal(got, want) {
			t.Errorf("%d bytes: %d grams, want %d", n, len(got), len(want))
		}
	}
}

// TestOfParts: an event's own and full text give the 4-grams of the text
// scannedText joins from them, the newline between them included.
func TestOfParts(t *testing.T) {
	var g, h gramSet
	for _, tc := range [][2]string{{"", ""}, {"Own", ""}, {"", "FULL only"}, {"ab", "cd"}, {"Ünïcode own", "and FULL text"}} {
		joined := tc[0]
		switch {
		case tc[0] == "":
			joined = tc[1]
		case tc[1] != "":
			joined = tc[0] + "\n" + tc[1]
		}
		if got, want := g.ofParts(tc[0], tc[1]), h.ofText(joined); !slices.Equal(got, want) {
			t.Errorf("ofParts(%q, %q) = %x, want %x", tc[0], tc[1], got, want)
		}
	}
}
