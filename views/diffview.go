package views

import (
	"image/color"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/editdiff"
)

// maxDiffLines caps the lines a diff card draws; Copy still has them all.
const maxDiffLines = 400

// Tints (alpha over the theme's success/error colours) of changed lines
// and of the changed words inside them.
const (
	lineTint = 0x30
	wordTint = 0x80
	markTint = 0x40 // a find match, over the primary colour
)

// diffView draws file diffs in monospace: removed lines on a red tint,
// added lines on a green tint, changed words on a stronger tint, long lines
// wrapped at the width. Its height depends on its width, like wrapped text.
type diffView struct {
	widget.BaseWidget
	files     []editdiff.File
	showPaths bool   // a header row per file, when there are several
	mark      string // the lower-case find query marked in the lines; "" for none
}

func newDiffView() *diffView {
	d := &diffView{}
	d.ExtendBaseWidget(d)
	return d
}

// set shows files.
func (d *diffView) set(files []editdiff.File) {
	d.files = files
	d.showPaths = len(files) > 1
	d.mark = ""
	d.Refresh()
}

// setMark marks each occurrence of the lower-case find query q in the
// lines (as the find bar marks text in other cards); "" marks none.
func (d *diffView) setMark(q string) {
	if q != d.mark {
		d.mark = q
		d.Refresh()
	}
}

// CreateRenderer returns the diff renderer.
func (d *diffView) CreateRenderer() fyne.WidgetRenderer {
	return &diffRenderer{d: d, width: -1}
}

// diffMetrics are the monospace cell size and insets of a build.
type diffMetrics struct {
	textSize, charW, lineH, pad, gutter float32
	cols                                int
}

func newDiffMetrics(width float32) diffMetrics {
	m := diffMetrics{textSize: theme.Size(theme.SizeNameText)}
	cell := fyne.MeasureText("M", m.textSize, fyne.TextStyle{Monospace: true})
	// Whole rows: a tint band of rows at fractional offsets is drawn with
	// each edge rounded on its own, which leaves seams between rows.
	m.charW, m.lineH = cell.Width, float32(math.Ceil(float64(cell.Height)))
	m.pad = theme.Size(theme.SizeNameInnerPadding) / 2
	m.gutter = 2 * m.charW
	m.cols = max(int((width-2*m.pad-m.gutter)/m.charW), 8)
	if width <= 0 {
		m.cols = 1 << 20 // not laid out yet: one row per line
	}
	return m
}

// diffRenderer builds canvas objects for the current width and rebuilds
// them when the width or the diff changes. They are drawn in three layers:
// the tint bands of changed lines (one per run of lines with the same
// tint, so no seam shows between them), the tints of changed words and
// find marks, then the text.
type diffRenderer struct {
	d       *diffView
	objects []fyne.CanvasObject
	bands   []fyne.CanvasObject
	marks   []fyne.CanvasObject
	texts   []fyne.CanvasObject
	band    diffBand // the run of tinted lines being drawn
	width   float32
	height  float32
	m       diffMetrics
}

// diffBand is a run of adjacent lines with the same tint: rows y0 to y1.
type diffBand struct {
	tint   fyne.ThemeColorName
	alpha  uint8
	y0, y1 float32
}

func (r *diffRenderer) ensure(width float32) {
	if width != r.width {
		r.build(width)
	}
}

func (r *diffRenderer) Layout(size fyne.Size) { r.ensure(size.Width) }

func (r *diffRenderer) MinSize() fyne.Size {
	r.ensure(r.d.Size().Width)
	return fyne.NewSize(12*r.m.charW, r.height)
}

func (r *diffRenderer) Refresh() {
	r.build(r.d.Size().Width)
	canvas.Refresh(r.d)
}

func (r *diffRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *diffRenderer) Destroy() {}

// build lays out every line of the diff at width. The height ends with a
// padding below the last row, as text cards have.
func (r *diffRenderer) build(width float32) {
	r.width, r.m = width, newDiffMetrics(width)
	r.bands, r.marks, r.texts = r.bands[:0], r.marks[:0], r.texts[:0]
	r.band = diffBand{}
	y, shown, total := float32(0), 0, 0
	for _, f := range r.d.files {
		total += len(f.Lines)
		if r.d.showPaths {
			y = r.fileHeader(f, y)
		}
		for _, l := range f.Lines {
			if shown == maxDiffLines {
				break
			}
			y = r.line(l, y)
			shown++
		}
	}
	if total > shown {
		more := "… " + display.Plural(int64(total-shown), "more line")
		y = r.text(more, r.m.pad, y, theme.ColorNamePlaceHolder, fyne.TextStyle{Italic: true})
	}
	r.tintRows("", 0, y, y) // ends the last band
	r.height = y + r.m.pad
	r.objects = append(append(append(r.objects[:0], r.bands...), r.marks...), r.texts...)
}

// fileHeader draws the path row of a file; it returns the next y.
func (r *diffRenderer) fileHeader(f editdiff.File, y float32) float32 {
	added, removed := f.Stats()
	label := joinNonEmpty("  ", f.Path, f.Op, "+"+itoa(added), "−"+itoa(removed))
	return r.text(label, r.m.pad, y, theme.ColorNameForeground, fyne.TextStyle{Bold: true, Monospace: true})
}

// text adds one unwrapped row of text.
func (r *diffRenderer) text(s string, x, y float32, c fyne.ThemeColorName, style fyne.TextStyle) float32 {
	t := canvas.NewText(s, theme.Color(c))
	t.TextSize, t.TextStyle = r.m.textSize, style
	t.Move(fyne.NewPos(x, y))
	t.Resize(fyne.NewSize(r.width-x, r.m.lineH))
	r.texts = append(r.texts, t)
	return y + r.m.lineH
}

// line draws one diff line, wrapped, on its tinted background.
func (r *diffRenderer) line(l editdiff.Line, y float32) float32 {
	if l.Op == editdiff.Hunk {
		r.tintRows(theme.ColorNameHover, 0, y, y+r.m.lineH)
		return r.text(truncateRunes(l.Text, r.m.cols+2), r.m.pad, y, theme.ColorNamePlaceHolder, fyne.TextStyle{Monospace: true})
	}
	segs := lineSegments(l)
	rows := wrapSegments(segs, r.m.cols)
	tint, sign := fyne.ThemeColorName(""), " "
	switch l.Op {
	case editdiff.Delete:
		tint, sign = theme.ColorNameError, "-"
	case editdiff.Insert:
		tint, sign = theme.ColorNameSuccess, "+"
	}
	h := float32(len(rows)) * r.m.lineH
	r.tintRows(tint, lineTint, y, y+h)
	if tint != "" {
		r.text(sign, r.m.pad, y, tint, fyne.TextStyle{Monospace: true, Bold: true})
	}
	marks := markRanges(segs, r.d.mark)
	x0 := r.m.pad + r.m.gutter
	for i, row := range rows {
		ry := y + float32(i)*r.m.lineH
		for _, p := range row {
			x := x0 + float32(p.col)*r.m.charW
			if p.changed && tint != "" {
				r.rect(x, ry, float32(utf8.RuneCountInString(p.text))*r.m.charW, r.m.lineH, tint, wordTint)
			}
			r.piece(p, x, ry, i*r.m.cols, marks)
		}
	}
	return y + h
}

// piece draws the text of p at x, y, with the parts inside marks (rune
// ranges of the line; row0 is the line's rune offset of p's row) in the
// primary colour on a tint of it, as find marks text elsewhere.
func (r *diffRenderer) piece(p piece, x, y float32, row0 int, marks [][2]int) {
	mono := fyne.TextStyle{Monospace: true}
	start := row0 + p.col
	runes := []rune(p.text)
	at := 0
	for _, m := range marks {
		from, to := max(m[0]-start, at), min(m[1]-start, len(runes))
		if from >= to {
			continue
		}
		if from > at {
			r.text(string(runes[at:from]), x+float32(at)*r.m.charW, y, theme.ColorNameForeground, mono)
		}
		mx := x + float32(from)*r.m.charW
		r.rect(mx, y, float32(to-from)*r.m.charW, r.m.lineH, theme.ColorNamePrimary, markTint)
		r.text(string(runes[from:to]), mx, y, theme.ColorNamePrimary, mono)
		at = to
	}
	if at < len(runes) {
		r.text(string(runes[at:]), x+float32(at)*r.m.charW, y, theme.ColorNameForeground, mono)
	}
}

// markRanges returns the rune ranges of the line made of segs where the
// lower-case q occurs, ignoring case; none for q "".
func markRanges(segs []segment, q string) [][2]int {
	if q == "" {
		return nil
	}
	var line []rune
	for _, s := range segs {
		for _, c := range s.text {
			line = append(line, unicode.ToLower(c))
		}
	}
	qr := []rune(q)
	var out [][2]int
	for i := 0; i+len(qr) <= len(line); i++ {
		if slices.Equal(line[i:i+len(qr)], qr) {
			out = append(out, [2]int{i, i + len(qr)})
			i += len(qr) - 1
		}
	}
	return out
}

// tintRows extends the band being drawn with rows y0 to y1 of tint at
// alpha a, or ends it and starts another; tint "" ends it.
func (r *diffRenderer) tintRows(tint fyne.ThemeColorName, a uint8, y0, y1 float32) {
	b := &r.band
	if b.tint == tint && b.alpha == a && b.y1 == y0 && tint != "" {
		b.y1 = y1
		return
	}
	if b.tint != "" {
		rect := canvas.NewRectangle(withAlpha(theme.Color(b.tint), b.alpha))
		rect.Move(fyne.NewPos(0, b.y0))
		rect.Resize(fyne.NewSize(r.width, b.y1-b.y0))
		r.bands = append(r.bands, rect)
	}
	*b = diffBand{tint: tint, alpha: a, y0: y0, y1: y1}
}

// rect adds a rectangle filled with colour c at alpha a (0: opaque theme
// colour) over the bands.
func (r *diffRenderer) rect(x, y, w, h float32, c fyne.ThemeColorName, a uint8) {
	rect := canvas.NewRectangle(withAlpha(theme.Color(c), a))
	rect.Move(fyne.NewPos(x, y))
	rect.Resize(fyne.NewSize(w, h))
	r.marks = append(r.marks, rect)
}

// withAlpha returns c with alpha a; a == 0 keeps c.
func withAlpha(c color.Color, a uint8) color.Color {
	if a == 0 {
		return c
	}
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = a
	return n
}

// segment is a run of a line, changed or not.
type segment struct {
	text    string
	changed bool
}

// lineSegments splits a line at its word spans, with tabs expanded.
func lineSegments(l editdiff.Line) []segment {
	var segs []segment
	at := 0
	add := func(s string, changed bool) {
		if s != "" {
			segs = append(segs, segment{strings.ReplaceAll(s, "\t", "    "), changed})
		}
	}
	for _, s := range l.Spans {
		add(l.Text[at:s.Start], false)
		add(l.Text[s.Start:s.End], true)
		at = s.End
	}
	add(l.Text[at:], false)
	return segs
}

// piece is a segment's part on one wrapped row, starting at column col.
type piece struct {
	text    string
	changed bool
	col     int
}

// wrapSegments cuts segments into rows of at most cols runes. An empty
// line is one empty row.
func wrapSegments(segs []segment, cols int) [][]piece {
	rows := [][]piece{nil}
	col := 0
	for _, s := range segs {
		text := s.text
		for text != "" {
			if col == cols {
				rows, col = append(rows, nil), 0
			}
			n := byteIndexOfRune(text, cols-col)
			last := len(rows) - 1
			rows[last] = append(rows[last], piece{text[:n], s.changed, col})
			col += utf8.RuneCountInString(text[:n])
			text = text[n:]
		}
	}
	return rows
}

// byteIndexOfRune returns the byte offset of rune n of s, or len(s).
func byteIndexOfRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// truncateRunes cuts s to n runes, ending in "…" when cut.
func truncateRunes(s string, n int) string {
	if i := byteIndexOfRune(s, n); i < len(s) {
		return s[:byteIndexOfRune(s, n-1)] + "…"
	}
	return s
}

func itoa(n int) string { return display.Count(n) }
