package views

import "strings"

// tabWidth is the tab stop, in columns, of the text Lazuli shows.
const tabWidth = 4

// expandTabs replaces each tab of s with the spaces that reach the next tab
// stop. Fyne 2.8.1 mislays a tab in any shaped run that does not start the
// text (a run after an arrow, an emoji or a CJK character): it measures the
// tab's index from the run's start but cuts the text at it as if from the
// text's start, and the text around the tab draws as a row of "�". Text
// handed to Fyne therefore never holds a tab.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := tabWidth - col%tabWidth
			b.WriteString("    "[:n])
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}
