package editdiff

import (
	"reflect"
	"strings"
	"testing"
)

// render writes lines as "-old", "+new", " ctx", "@@ hunk", with changed
// words in [brackets], so a case reads like the diff it expects.
func render(lines []Line) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		prefix := map[Op]string{Equal: " ", Delete: "-", Insert: "+", Hunk: ""}[l.Op]
		var b strings.Builder
		b.WriteString(prefix)
		at := 0
		for _, s := range l.Spans {
			b.WriteString(l.Text[at:s.Start] + "[" + l.Text[s.Start:s.End] + "]")
			at = s.End
		}
		b.WriteString(l.Text[at:])
		out = append(out, b.String())
	}
	return out
}

func TestWordDiff(t *testing.T) {
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
			got := render(WordDiff(tt.old, tt.new))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("WordDiff(%q, %q) =\n%q\nwant\n%q", tt.old, tt.new, got, tt.want)
			}
		})
	}
}

func TestFileDiffStats(t *testing.T) {
	d := File{Lines: WordDiff("a\nb\nc\n", "a\nB\nc\nd\n")}
	if add, del := d.Stats(); add != 2 || del != 1 {
		t.Errorf("Stats() = +%d -%d, want +2 -1", add, del)
	}
}
