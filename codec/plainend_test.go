package codec

import "testing"

// PlainEnd and PlainASCIIEnd test eight bytes at a time: each must stop
// at exactly the first byte that ends its run, at every offset of a word.
func TestPlainEnds(t *testing.T) {
	stops := map[byte]struct{ plain, ascii bool }{
		'"': {true, true}, '\\': {true, true}, 0x00: {true, true}, 0x1f: {true, true},
		0x20: {false, false}, 'a': {false, false}, 0x7f: {false, false}, 0x80: {false, true}, 0xff: {false, true},
	}
	for c, want := range stops {
		for n := 0; n < 20; n++ {
			for from := 0; from <= n; from++ {
				b := make([]byte, n+1+9)
				for i := range b {
					b[i] = 'x'
				}
				b[n] = c
				if got, w := PlainEnd(b, from), pick(want.plain, n, len(b)); got != w {
					t.Errorf("PlainEnd(%q at %d, from %d) = %d, want %d", c, n, from, got, w)
				}
				if got, w := PlainASCIIEnd(b, from), pick(want.ascii, n, len(b)); got != w {
					t.Errorf("PlainASCIIEnd(%q at %d, from %d) = %d, want %d", c, n, from, got, w)
				}
			}
		}
	}
}

func pick(stop bool, at, end int) int {
	if stop {
		return at
	}
	return end
}
