package assets

import (
	"testing"

	"golang.org/x/image/font/sfnt"
)

// TestSymbolsHaveForkMark: both Lazuli Symbols faces draw ⑂ (U+2442), the
// mark of a forked session's name, which no other face Lazuli uses has
// (scripts/fork-glyph.py adds it).
func TestSymbolsHaveForkMark(t *testing.T) {
	for name, data := range map[string][]byte{"regular": symbolsRegular, "bold": symbolsBold} {
		f, err := sfnt.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var buf sfnt.Buffer
		for _, r := range []rune{'⑂', '↳', '★'} {
			if i, err := f.GlyphIndex(&buf, r); err != nil || i == 0 {
				t.Errorf("%s: no glyph for %c (%v)", name, r, err)
			}
		}
	}
}
