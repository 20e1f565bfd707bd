package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"
)

// describeSegments writes segs one per line: "p" for a paragraph or list
// item, "list", "gap" for polishMarkdown's gap, "end" for the end of a
// block, and a text as its text quoted, with "code" before inline code.
func describeSegments(segs []widget.RichTextSegment) string {
	var b strings.Builder
	for _, s := range segs {
		switch v := s.(type) {
		case *widget.TextSegment:
			switch {
			case v.Style.SizeName == sizeNameBlockGap:
				b.WriteString("gap ")
			case !v.Style.Inline && v.Text == "":
				b.WriteString("end ")
			case isInlineCode(v):
				b.WriteString("code" + `"` + v.Text + `" `)
			default:
				b.WriteString(`"` + v.Text + `" `)
			}
		case *widget.ListSegment:
			b.WriteString("list[ " + describeSegments(v.Items) + "] ")
		case *widget.ParagraphSegment:
			b.WriteString("p[ " + describeSegments(v.Texts) + "] ")
		default:
			b.WriteString("? ")
		}
	}
	return b.String()
}

// TestPolishMarkdown: blocks are parted by one gap (a list was stuck to the
// text around it), and the space after inline code (or bold text) is a
// segment of its own (drawn at the start of the next text, it was lost).
func TestPolishMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"One.\n\nTwo.", `"One." end gap "Two." end `},
		{"Fixed. `parseLine` now:\n1. trims `a` b\n2. wraps\n\nAfter.",
			`"Fixed. " code"parseLine" " " "now:" end gap list[ p[ "trims " code"a" " " "b" ] p[ "wraps" ] ] gap "After." end `},
		{"pins `setup-go`, then `x`", `"pins " code"setup-go" ", then " code"x" end `},
		{"- a\n- b", `list[ p[ "a" ] p[ "b" ] ] `},
		{"use **this** file", `"use " "this" " " "file" end `},
	} {
		got := describeSegments(polishMarkdown(safeMarkdown(tc.in, func(string) {})))
		if got != tc.want {
			t.Errorf("polishMarkdown(%q) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}

// isInlineCode reports a segment Fyne draws as inline code (monospace, in
// a box).
func isInlineCode(s *widget.TextSegment) bool {
	return s.Style.Inline && s.Style.TextStyle.Monospace && s.Style.ColorName == widget.RichTextStyleCodeInline.ColorName
}
