package safelink

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
)

// markdownCases are hostile Markdown an agent, a tool or a teammate's
// database can put in a session, and what Markdown makes of it.
var markdownCases = []struct{ name, in, want string }{
	{"plain", "Hello **world** and [docs](https://example.com).", "Hello **world** and [docs](https://example.com)."},
	{"script", "<script>alert(1)</script>", `\<script>alert(1)\</script>`},
	{"img onerror", "hi <img src=x onerror=alert(1)> there", `hi \<img src=x onerror=alert(1)> there`},
	{"iframe block", "<iframe src=\"https://evil.example\"></iframe>", `\<iframe src="https://evil.example">\</iframe>`},
	{"javascript link", "[x](javascript:alert(1))", `\[x](javascript:alert(1))`},
	{"mixed case javascript", "[x](JaVaScRiPt:alert(1))", `\[x](JaVaScRiPt:alert(1))`},
	{"file link", "[passwd](file:///etc/passwd)", `\[passwd](file:///etc/passwd)`},
	{"ssh link", "[box](ssh://evil.example)", `\[box](ssh://evil.example)`},
	{"lazuli link", "[S1](lazuli://open?session=1)", `\[S1](lazuli://open?session=1)`},
	{"scheme-relative link", "[x](//evil.example/x)", `\[x](//evil.example/x)`},
	{"entity-encoded scheme", "[x](javascript&#58;alert(1))", `\[x](javascript&#58;alert(1))`},
	{"autolink file", "<file:///etc/passwd>", `\<file:///etc/passwd>`},
	{"autolink safe", "<https://example.com>", "<https://example.com>"},
	{"bare ftp", "see ftp://example.com/x", `see ftp\://example.com/x`},
	{"bare https", "see https://example.com/x", "see https://example.com/x"},
	{"reference link", "[x][r]\n\n[r]: javascript:alert(1)", "\\[x][r]\n\n\\[r]: javascript:alert(1)"},
	{"definition alone", "[r]: file:///etc/passwd", `\[r]: file:///etc/passwd`},
	{"safe definition", "[x][r]\n\n[r]: https://example.com", "[x][r]\n\n[r]: https://example.com"},
	{"image unsafe", "![x](file:///etc/passwd)", `!\[x](file:///etc/passwd)`},
	{"image safe", "![logo](https://example.com/l.png)", `\![logo](https://example.com/l.png)`},
	{"html block with link", "<div>\n[click](javascript:alert(1))\n</div>", "\\<div>\n\\[click](javascript:alert(1))\n\\</div>"},
	{"comment with link", "<!-- [a](javascript:x) -->", `\<!-- \[a](javascript:x) -->`},
	{"quoted script", "> <script>\n> x", "> \\<script>\n> x"},
	{"list link", "- [a](vbscript:x)", `- \[a](vbscript:x)`},
	{"code is left alone", "`<script>` and\n```\n<script>[x](javascript:y)\n```", "`<script>` and\n```\n<script>[x](javascript:y)\n```"},
	{"escaped already", `\<script> \[x](javascript:y)`, `\<script> \[x](javascript:y)`},
	{"escaped backslash", `\\<script>`, `\\\<script>`},
}

func TestMarkdown(t *testing.T) {
	for _, tc := range markdownCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Markdown(tc.in)
			if got != tc.want {
				t.Errorf("Markdown(%q) = %q, want %q", tc.in, got, tc.want)
			}
			checkViewer(t, got)
		})
	}
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
			case a.Key == "href" && !Opens(a.Val):
				t.Fatalf("viewed, %q links to %q", md, a.Val)
			}
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, tc := range markdownCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkViewer(t, Markdown(s))
	})
}
