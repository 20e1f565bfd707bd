package export

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/safelink"
	"github.com/lazuli-app/lazuli/store"
)

// hostileMarkdown is what an agent, a tool or a teammate's database can
// put in a session's text (safelink's tests hold the full table).
var hostileMarkdown = []string{
	"<script>alert(1)</script>",
	"hi <img src=x onerror=alert(1)> there",
	"<iframe src=\"https://evil.example\"></iframe>",
	"[x](javascript:alert(1))",
	"[x](JaVaScRiPt:alert(1))",
	"[passwd](file:///etc/passwd)",
	"[box](ssh://evil.example)",
	"[x](//evil.example/x)",
	"<file:///etc/passwd>",
	"see ftp://example.com/x",
	"[x][r]\n\n[r]: javascript:alert(1)",
	"![x](file:///etc/passwd)",
	"![logo](https://example.com/l.png)",
	"<div>\n[click](javascript:alert(1))\n</div>",
	"> <script>\n> x",
}

// viewer renders Markdown as a permissive viewer would: GitHub's
// extensions, bare URLs linked, raw HTML passed through.
var viewer = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))

// viewerTags are the elements Markdown may turn into, Lazuli's own folds
// included.
var viewerTags = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "em": true, "strong": true,
	"del": true, "code": true, "pre": true, "blockquote": true, "ul": true, "ol": true, "li": true, "hr": true,
	"br": true, "a": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"input": true, "details": true, "summary": true,
}

// checkViewer fails when md, viewed, holds an element other than
// Markdown's, an event handler, anything that loads a resource, or a link
// the desktop may not open.
func checkViewer(t *testing.T, md string) {
	t.Helper()
	var b bytes.Buffer
	if err := viewer.Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	z := html.NewTokenizer(&b)
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if !errors.Is(z.Err(), io.EOF) {
				t.Fatal(z.Err())
			}
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		if !viewerTags[tok.Data] {
			t.Fatalf("viewed, %q holds <%s>", md, tok.Data)
		}
		for _, a := range tok.Attr {
			switch {
			case strings.HasPrefix(a.Key, "on"), a.Key == "src", a.Key == "srcset", a.Key == "style":
				t.Fatalf("viewed, %q holds %s=%q", md, a.Key, a.Val)
			case a.Key == "href" && !safelink.Opens(a.Val):
				t.Fatalf("viewed, %q links to %q", md, a.Val)
			}
		}
	}
}

// The whole Markdown export of hostile events, viewed, runs nothing,
// loads nothing and links only where the desktop may go; the hostile text
// is still there, as text. A definition in one event cannot arm a link in
// another.
func TestMarkdownExportInert(t *testing.T) {
	var evs []codec.Event
	evs = append(evs, codec.UserMessage("<script>alert('prompt')</script> [p](file:///etc/passwd)"))
	for _, md := range hostileMarkdown {
		evs = append(evs, codec.AssistantText(md))
	}
	evs = append(evs,
		codec.AssistantText("uses [the ref] of another event"),
		codec.AssistantText("[the ref]: javascript:alert(document.cookie)"),
		codec.Plan("Plan", "1. <img src=x onerror=alert(1)>\n2. [run](ssh://evil.example)"),
		codec.AssistantText("\x01[ctl](\x01javascript:alert(1)) <javascript:\ralert(1)>"),
	)
	stored := make([]store.StoredEvent, len(evs))
	for i, e := range evs {
		stored[i] = store.StoredEvent{ID: int64(i + 1), Seq: int64(i + 1), Kind: e.Kind, Event: e}
	}
	comps := []store.Compaction{{ID: 1, SessionID: 3, AfterSeq: 2, Summary: "<style>body{display:none}</style>[s](data:text/html,x)"}}
	md := render(t, NewSource(store.Session{ID: 3, Name: "hostile"}, stored, comps), Markdown)
	checkViewer(t, md)
	var b bytes.Buffer
	if err := viewer.Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"&lt;script&gt;alert('prompt')&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;",
		"[x](javascript:alert(1))", "[passwd](file:///etc/passwd)", "&lt;style&gt;body{display:none}&lt;/style&gt;"} {
		if !strings.Contains(html.UnescapeString(b.String()), html.UnescapeString(want)) {
			t.Errorf("viewed export does not show %q as text:\n%s", want, b.String())
		}
	}
}
