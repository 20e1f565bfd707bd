package export

import (
	"bufio"
	"strings"
	"testing"
)

func mdToHTML(s string) string {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	markdownHTML(w, s)
	_ = w.Flush() // a strings.Builder does not fail
	return b.String()
}

var markdownCases = []struct{ name, in, want string }{
	{"paragraph", "Hello <b>world</b> & co", "<p>Hello &lt;b&gt;world&lt;/b&gt; &amp; co</p>\n"},
	{"script", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
	{"line breaks", "one\ntwo", "<p>one<br>\ntwo</p>\n"},
	{"heading", "## Plan *now*", "<h2>Plan <em>now</em></h2>\n"},
	{"setext", "Title\n---", "<h2>Title</h2>\n"},
	{"rule", "a\n\n---\n\nb", "<p>a</p>\n<hr>\n<p>b</p>\n"},
	{"code span", "run `rm -rf <dir>` now", "<p>run <code>rm -rf &lt;dir&gt;</code> now</p>\n"},
	{"double backticks", "``a ` b``", "<p><code>a ` b</code></p>\n"},
	{"unmatched backtick", "a ` b", "<p>a ` b</p>\n"},
	{"strong em del", "**b** *i* _u_ ~~s~~ ***bi***", "<p><strong>b</strong> <em>i</em> <em>u</em> <del>s</del> <em><strong>bi</strong></em></p>\n"},
	{"snake case", "call snake_case_name and 2 * 3 * 4", "<p>call snake_case_name and 2 * 3 * 4</p>\n"},
	{"link with quotes", "[docs](https://example.com/a?b=1&c=\"2\")", "<p><a href=\"https://example.com/a?b=1&amp;c=%222%22\">docs</a></p>\n"},
	{"safe link", "[docs](https://example.com/a?b=1&c=2)", "<p><a href=\"https://example.com/a?b=1&amp;c=2\">docs</a></p>\n"},
	{"javascript link", "[x](javascript:alert(1))", "<p>x (javascript:alert(1))</p>\n"},
	{"unsafe image", "![x](data:image/png;base64,AA)", "<p>[image: x] (data:image/png;base64,AA)</p>\n"},
	{"html block", "<div onclick=\"x()\">\nhi\n</div>", "<p>&lt;div onclick=&#34;x()&#34;&gt;<br>\nhi<br>\n&lt;/div&gt;</p>\n"},
	{"email", "write to a@example.com", "<p>write to <a href=\"mailto:a@example.com\">a@example.com</a></p>\n"},
	{"task list", "- [x] done\n- [ ] todo", "<ul>\n<li>[x] done</li>\n<li>[ ] todo</li>\n</ul>\n"},
	{"image", "![logo](https://example.com/logo.png)", "<p><a href=\"https://example.com/logo.png\">[image: logo]</a></p>\n"},
	{"autolink", "see <https://go.dev> and https://pkg.go.dev/fmt.", "<p>see <a href=\"https://go.dev\">https://go.dev</a> and <a href=\"https://pkg.go.dev/fmt\">https://pkg.go.dev/fmt</a>.</p>\n"},
	{"escape", `\*not em\*`, "<p>*not em*</p>\n"},
	{"fence", "```go\nx := 1 < 2\n```", "<pre><code class=\"language-go\">x := 1 &lt; 2\n</code></pre>\n"},
	{"fence bad lang", "```\"><script>\nx\n```", "<pre><code class=\"language-&quot;&gt;&lt;script&gt;\">x\n</code></pre>\n"},
	{"unclosed fence", "```\ncode", "<pre><code>code\n</code></pre>\n"},
	{"tilde fence", "~~~\n```\n~~~", "<pre><code>```\n</code></pre>\n"},
	{"bullets", "- a\n- b\n  - c", "<ul>\n<li>a</li>\n<li>b\n<ul>\n<li>c</li>\n</ul>\n</li>\n</ul>\n"},
	{"ordered", "3. a\n4. b", "<ol start=\"3\">\n<li>a</li>\n<li>b</li>\n</ol>\n"},
	{"loose", "- a\n\n- b", "<ul>\n<li>\n<p>a</p>\n</li>\n<li>\n<p>b</p>\n</li>\n</ul>\n"},
	{"list after paragraph", "Steps:\n1. one\n2. two", "<p>Steps:</p>\n<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"},
	{"quote", "> quoted\n> **text**", "<blockquote>\n<p>quoted<br>\n<strong>text</strong></p>\n</blockquote>\n"},
	{"table", "| a | b |\n|:--|--:|\n| `x\\|y` | 2 |", "<table>\n<thead>\n<tr>\n<th style=\"text-align:left\">a</th>\n<th style=\"text-align:right\">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td style=\"text-align:left\"><code>x|y</code></td>\n<td style=\"text-align:right\">2</td>\n</tr>\n</tbody>\n</table>\n"},
}

func TestMarkdownHTML(t *testing.T) {
	for _, tc := range markdownCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := mdToHTML(tc.in); got != tc.want {
				t.Errorf("markdownHTML(%q) =\n%q\nwant\n%q", tc.in, got, tc.want)
			}
		})
	}
}

// Pathological input stays fast: each unmatched delimiter is looked for
// once.
func TestMarkdownHTMLLinear(t *testing.T) {
	in := strings.Repeat("*_`[~", 20_000)
	if out := mdToHTML(in); !strings.HasPrefix(out, "<p>") {
		t.Errorf("output starts %.40q", out)
	}
}

func FuzzMarkdownHTML(f *testing.F) {
	for _, tc := range markdownCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := mdToHTML(s)
		checkHTML(t, "<!DOCTYPE html>\n<div>"+out+"</div>")
	})
}
