package export

import (
	"bufio"
	"bytes"
	"html"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"github.com/lazuli-app/lazuli/safelink"
)

// markdown is the Markdown engine of HTML exports: goldmark, the engine the
// window renders Markdown with (through Fyne's RichText), with the same
// extensions (tables, strike-through, task lists) plus bare-URL links, so
// an export shows what the window shows. Line breaks inside a paragraph
// are kept, as agents' chat output expects. safeRenderer replaces
// goldmark's handling of raw HTML, links and images. It is built on first
// use, so that commands without an HTML export do not pay for it.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignStyle)),
			extension.Strikethrough, extension.TaskList, extension.Linkify,
		),
		goldmark.WithRendererOptions(
			gmhtml.WithHardWraps(),
			renderer.WithNodeRenderers(util.Prioritized(safeRenderer{}, 100)),
		),
	)
})

// markdownHTML writes the Markdown of assistant text, a plan or a summary
// as HTML. It is safe by construction: goldmark escapes every piece of
// text and every attribute, raw HTML in the Markdown is shown as text,
// links are kept only for http, https and mailto URLs (others show their
// target as text), and images become links, so an export never loads
// anything.
func markdownHTML(w *bufio.Writer, s string) {
	var b bytes.Buffer
	if err := markdown().Convert([]byte(cleanText(s)), &b); err != nil {
		// goldmark fails only when its writer does; a bytes.Buffer does not.
		w.WriteString("<pre>" + html.EscapeString(cleanText(s)) + "</pre>\n")
		return
	}
	w.Write(b.Bytes())
}

// safeRenderer renders the nodes whose default HTML would carry raw HTML,
// a dangerous link, an image or a form control.
type safeRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (safeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(extast.KindTaskCheckBox, renderTaskCheckBox)
}

// renderRawHTML shows inline HTML as text.
func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := node.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			seg := segs.At(i)
			_, _ = w.WriteString(html.EscapeString(string(seg.Value(source))))
		}
	}
	return ast.WalkSkipChildren, nil
}

// renderHTMLBlock shows a block of HTML as a paragraph of text.
func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	var text strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		text.Write(seg.Value(source))
	}
	if n.HasClosure() {
		text.Write(n.ClosureLine.Value(source))
	}
	body := strings.TrimRight(text.String(), "\n")
	_, _ = w.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(body), "\n", "<br>\n") + "</p>\n")
	return ast.WalkSkipChildren, nil
}

// renderLink writes a link to a safe URL; any other link keeps its text
// and shows its target as text.
func renderLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	dest := string(util.URLEscape(node.(*ast.Link).Destination, true))
	switch {
	case safeURL(dest) && entering:
		_, _ = w.WriteString(`<a href="` + html.EscapeString(dest) + `">`)
	case safeURL(dest):
		_, _ = w.WriteString("</a>")
	case !entering && dest != "":
		_, _ = w.WriteString(" (" + html.EscapeString(string(node.(*ast.Link).Destination)) + ")")
	}
	return ast.WalkContinue, nil
}

// renderImage writes an image as a link to it labelled "[image: alt]",
// or, for an unsafe URL, the label and the target as text.
func renderImage(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Image)
	dest := string(util.URLEscape(n.Destination, true))
	safe := safeURL(dest)
	switch {
	case entering && safe:
		_, _ = w.WriteString(`<a href="` + html.EscapeString(dest) + `">[image: `)
	case entering:
		_, _ = w.WriteString("[image: ")
	case safe:
		_, _ = w.WriteString("]</a>")
	default:
		_, _ = w.WriteString("]")
		if dest != "" {
			_, _ = w.WriteString(" (" + html.EscapeString(string(n.Destination)) + ")")
		}
	}
	return ast.WalkContinue, nil
}

// renderAutoLink writes "<https://…>", a bare URL or an e-mail address
// as a link when its URL is safe, else as text.
func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	url := string(util.URLEscape(n.URL(source), false))
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
		url = "mailto:" + url
	}
	label := html.EscapeString(string(n.Label(source)))
	if !safeURL(url) {
		_, _ = w.WriteString(label)
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<a href="` + html.EscapeString(url) + `">` + label + "</a>")
	return ast.WalkContinue, nil
}

// renderTaskCheckBox writes a task list's box as text, "[ ] " or "[x] ",
// as the Markdown has it: an export holds no form controls.
func renderTaskCheckBox(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		box := "[ ] "
		if node.(*extast.TaskCheckBox).IsChecked {
			box = "[x] "
		}
		_, _ = w.WriteString(box)
	}
	return ast.WalkContinue, nil
}

// safeURL accepts the link targets an export keeps: those the desktop may
// open (safelink.Opens: absolute http, https and mailto URLs).
func safeURL(u string) bool { return safelink.Opens(u) }
