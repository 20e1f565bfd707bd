package views

import (
	"reflect"
	"strings"
	"testing"
)

// render writes lines as "-old", "+new", " ctx", "@@ hunk", with changed
// words in [brackets], so a case reads like the diff it expects.
func render(lines []diffLine) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		prefix := map[diffKind]string{diffContext: " ", diffDelete: "-", diffInsert: "+", diffHunk: ""}[l.kind]
		var b strings.Builder
		b.WriteString(prefix)
		at := 0
		for _, s := range l.spans {
			b.WriteString(l.text[at:s.start] + "[" + l.text[s.start:s.end] + "]")
			at = s.end
		}
		b.WriteString(l.text[at:])
		out = append(out, b.String())
	}
	return out
}

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"PureInsert", "a\nc\n", "a\nb\nc\n", []string{" a", "+b", " c"}},
		{"PureDelete", "a\nb\nc", "a\nc", []string{" a", "-b", " c"}},
		{"Unchanged", "x\ny", "x\ny\n", []string{" x", " y"}},
		{"FromEmpty", "", "new\n", []string{"+new"}},
		{"ToEmpty", "old", "", []string{"-old"}},
		{
			"ChangedLineWordSpans",
			"func main() {\n\tfmt.Println(\"hello\")\n}\n",
			"func main() {\n\tfmt.Println(\"goodbye\")\n}\n",
			[]string{" func main() {", "-\tfmt.Println(\"[hello]\")", "+\tfmt.Println(\"[goodbye]\")", " }"},
		},
		{
			"UnrelatedLinesNoWordSpans",
			"alpha beta gamma\n", "1234567890 xyz\n",
			[]string{"-alpha beta gamma", "+1234567890 xyz"},
		},
		{
			"TwoPairs",
			"x := 1\ny := 2\n", "x := 10\ny := 20\n",
			[]string{"-x := [1]", "-y := [2]", "+x := [10]", "+y := [20]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(lineDiff(tt.old, tt.new))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("lineDiff(%q, %q) =\n%q\nwant\n%q", tt.old, tt.new, got, tt.want)
			}
		})
	}
}

func TestFileDiffStats(t *testing.T) {
	d := fileDiff{lines: lineDiff("a\nb\nc\n", "a\nB\nc\nd\n")}
	if add, del := d.stats(); add != 2 || del != 1 {
		t.Errorf("stats() = +%d -%d, want +2 -1", add, del)
	}
}
