package views

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

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

// markSegments splits s into inline segments of style, with each
// case-insensitive occurrence of the lower-case q in the primary colour,
// bold unless monospace.
func markSegments(s, q string, style widget.RichTextStyle) []widget.RichTextSegment {
	style.Inline = true
	mark := style
	mark.ColorName = theme.ColorNamePrimary
	mark.TextStyle.Bold = !style.TextStyle.Monospace // themes need not have a bold monospace face
	lower := strings.ToLower(s)
	if q == "" || len(lower) != len(s) { // lower-casing moved the bytes: no safe mapping
		return []widget.RichTextSegment{&widget.TextSegment{Text: s, Style: style}}
	}
	var segs []widget.RichTextSegment
	at := 0
	for {
		i := strings.Index(lower[at:], q)
		if i < 0 {
			break
		}
		if i > 0 {
			segs = append(segs, &widget.TextSegment{Text: s[at : at+i], Style: style})
		}
		segs = append(segs, &widget.TextSegment{Text: s[at+i : at+i+len(q)], Style: mark})
		at += i + len(q)
	}
	if at < len(s) || len(segs) == 0 {
		segs = append(segs, &widget.TextSegment{Text: s[at:], Style: style})
	}
	return segs
}

// highlightSegments marks q (see markSegments) in the text segments of
// segs, inside paragraphs and lists too. A block segment that is split keeps
// its line break on its last part.
func highlightSegments(segs []widget.RichTextSegment, q string) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for _, seg := range segs {
		switch v := seg.(type) {
		case *widget.TextSegment:
			parts := markSegments(v.Text, q, v.Style)
			parts[len(parts)-1].(*widget.TextSegment).Style.Inline = v.Style.Inline
			out = append(out, parts...)
		case *widget.ParagraphSegment:
			v.Texts = highlightSegments(v.Texts, q)
			out = append(out, v)
		case *widget.ListSegment:
			v.Items = highlightSegments(v.Items, q)
			out = append(out, v)
		default:
			out = append(out, seg)
		}
	}
	return out
}

// sizeNameBlockGap sizes the empty row polishMarkdown puts between two
// blocks of Markdown; blockGap is its size in Lazuli's theme (the row is
// about 1.3 times as high, and the rows' spacing comes on top: about 1em
// between blocks at the default text size, as Markdown viewers space them).
const (
	sizeNameBlockGap fyne.ThemeSizeName = "lazuliBlockGap"
	blockGap         float32            = 5
)

// polishMarkdown spaces segs (as Fyne's Markdown parser makes them) like a
// Markdown viewer, in place, and returns them:
//
//   - blocks (paragraphs, lists, code blocks, headings, rules) are parted
//     by the same gap: Fyne puts none around a list and a row's spacing
//     between paragraphs, so a list stuck to the text around it;
//   - the spaces a text starts with, after inline code, a link or bold
//     text, are a segment of their own: drawn at the start of the text
//     they were lost, and the word touched the code's box.
func polishMarkdown(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs)+len(segs)/2)
	blockEnded := false
	for _, s := range splitLeadingSpaces(segs) {
		if blockEnded {
			out = append(out, &widget.TextSegment{Style: widget.RichTextStyle{SizeName: sizeNameBlockGap}})
		}
		out = append(out, s)
		blockEnded = !s.Inline()
	}
	return out
}

// splitLeadingSpaces splits the leading spaces off each text that follows
// another inline segment in segs, inside paragraphs and lists too.
func splitLeadingSpaces(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := segs[:0:0]
	inline := false // the segment before was inline
	for _, s := range segs {
		switch v := s.(type) {
		case *widget.ParagraphSegment:
			v.Texts = splitLeadingSpaces(v.Texts)
		case *widget.ListSegment:
			v.Items = splitLeadingSpaces(v.Items)
		case *widget.TextSegment:
			if rest := strings.TrimLeft(v.Text, " "); inline && v.Style.Inline && rest != v.Text && rest != "" {
				space := *v
				space.Text = v.Text[:len(v.Text)-len(rest)]
				v.Text = rest
				out = append(out, &space)
			}
		}
		inline = s.Inline()
		out = append(out, s)
	}
	return out
}
