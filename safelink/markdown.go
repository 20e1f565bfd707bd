package safelink

import (
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Markdown returns the Markdown s (a prompt, an agent's text, a plan, a
// summary, a report an agent wrote) with everything in it that would act
// when it is viewed, in a browser or an editor's preview, made inert by
// backslash escapes, which CommonMark shows as the character
// escaped. Raw HTML (inline or a block: <script>, <img onerror=…>, an
// iframe) is shown as text; a link, an autolink or a bare URL whose target
// the desktop may not open (Opens) (javascript:, file:, a custom
// scheme) is shown as text, target included; an image becomes a link to
// it (so viewing the export loads nothing) or, for an unsafe target, text;
// and when s defines a link reference with an unsafe target, its
// definitions are shown as text (a definition is global to the document
// and could be used by the text around s). Everything else is left as
// it is, so the result reads like the Markdown the agent wrote.
//
// Each pass parses s with goldmark, as a viewer would, and escapes the
// first character of each construct it finds; escaping can turn the text
// of an HTML block into Markdown, so passes repeat until one finds
// nothing. Each pass escapes a '<', '[', '!' or ':' no pass can find
// again, so this ends; maxPasses bounds it all the same, after which
// s is written as a code block.
func Markdown(s string) string {
	src := []byte(s)
	for range maxPasses {
		at := unsafeAt(src)
		if len(at) == 0 {
			return string(src)
		}
		src = escapeAt(src, at)
	}
	fence := Fence(s, 3)
	return fence + "text\n" + s + "\n" + fence
}

// maxPasses bounds Markdown's passes.
const maxPasses = 32

// mdParser parses Markdown as a viewer does (GitHub's extensions,
// bare-URL links included) and records where link reference definitions
// were (defRecorder).
var mdParser = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify),
	goldmark.WithParserOptions(parser.WithParagraphTransformers(
		util.Prioritized(defRecorder{after: false}, 50), // before goldmark's definitions (100)
		util.Prioritized(defRecorder{after: true}, 150), // after them, before tables (200)
	)),
).Parser()

// unsafeAt parses src and returns the offsets of the characters to
// escape, sorted, without repeats.
func unsafeAt(src []byte) []int {
	pc := parser.NewContext()
	defs := &definitions{before: map[*ast.Paragraph]int{}, changed: map[*ast.Paragraph]bool{}}
	pc.Set(defsKey, defs)
	doc := mdParser.Parse(gmtext.NewReader(src), parser.WithContext(pc))
	var at []int
	mark := func(i int, c byte) {
		if i >= 0 && i < len(src) && src[i] == c {
			at = append(at, i)
		}
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.RawHTML:
			if n.Segments.Len() > 0 {
				mark(n.Segments.At(0).Start, '<')
			}
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			if n.Lines().Len() > 0 {
				seg := n.Lines().At(0)
				mark(seg.Start+firstNonSpace(src[seg.Start:seg.Stop]), '<')
			}
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			if !Opens(string(n.Destination)) {
				mark(n.Pos(), '[')
			}
		case *ast.Image:
			p := n.Pos()
			if p > 0 && src[p] == '[' && src[p-1] == '!' {
				p--
			}
			if Opens(string(n.Destination)) {
				mark(p, '!') // a link to the image
			} else {
				mark(p+1, '[')
			}
		case *ast.AutoLink:
			url := string(n.URL(src))
			if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
				url = "mailto:" + url
			}
			if Opens(url) {
				return ast.WalkContinue, nil
			}
			p := n.Pos()
			if p >= 0 && p < len(src) && src[p] == '<' {
				mark(p, '<')
			} else if p >= 0 && p < len(src) {
				// a bare URL: the colon after its scheme
				if i := strings.IndexByte(string(src[p:]), ':'); i >= 0 {
					mark(p+i, ':')
				}
			}
		}
		return ast.WalkContinue, nil
	})
	for _, d := range pc.References() {
		if !Opens(string(d.Destination())) {
			at = append(at, defs.starts(src)...)
			break
		}
	}
	slices.Sort(at)
	return slices.Compact(at)
}

// escapeAt returns src with a backslash before each offset of at (sorted).
func escapeAt(src []byte, at []int) []byte {
	out := make([]byte, 0, len(src)+len(at))
	last := 0
	for _, i := range at {
		out = append(out, src[last:i]...)
		out = append(out, '\\')
		last = i
	}
	return append(out, src[last:]...)
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' {
			return i
		}
	}
	return 0
}

// definitions are the paragraphs that began with link reference
// definitions, found by the two defRecorders of one parse.
type definitions struct {
	before  map[*ast.Paragraph]int // a paragraph's first line, before goldmark took its definitions
	changed map[*ast.Paragraph]bool
	order   []*ast.Paragraph
}

// starts returns where each paragraph that began with definitions starts:
// a paragraph goldmark removed (all definitions) or whose first line moved.
func (d *definitions) starts(src []byte) []int {
	var out []int
	for _, p := range d.order {
		if p.Parent() != nil && !d.changed[p] {
			continue
		}
		out = append(out, d.before[p]+firstNonSpace(src[d.before[p]:]))
	}
	return out
}

var defsKey = parser.NewContextKey()

// defRecorder notes a paragraph's first line before goldmark's link
// reference definitions transformer runs (after: false) and whether it
// moved once it has (after: true).
type defRecorder struct{ after bool }

// Transform implements parser.ParagraphTransformer.
func (r defRecorder) Transform(p *ast.Paragraph, _ gmtext.Reader, pc parser.Context) {
	d, ok := pc.Get(defsKey).(*definitions)
	if !ok || p.Lines().Len() == 0 {
		return
	}
	start := p.Lines().At(0).Start
	if !r.after {
		d.before[p] = start
		d.order = append(d.order, p)
		return
	}
	if b, ok := d.before[p]; ok && b != start {
		d.changed[p] = true
	}
}

// Fence returns the run of backticks that encloses s as Markdown code: one
// longer than the longest run of backticks in s, and at least least long
// (3 for a fenced block, 1 for an inline code span).
func Fence(s string, least int) string {
	return strings.Repeat("`", max(least, longestRun(s, '`')+1))
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
