package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// mdOutsideFences returns the lines of a Markdown document that are not
// inside a fenced code block, and fails when a fence is left open.
func mdOutsideFences(t *testing.T, doc string) []string {
	t.Helper()
	var out []string
	open := ""
	for _, l := range strings.Split(doc, "\n") {
		if open == "" {
			if openFence(l) != "" {
				open = openFence(l)
				continue
			}
			out = append(out, l)
			continue
		}
		if strings.HasPrefix(l, open[:1]) && strings.Trim(l, open[:1]) == "" && len(l) >= len(open) {
			open = ""
		}
	}
	if open != "" {
		t.Fatalf("document ends inside a %s fence", open)
	}
	return out
}

func countLines(lines []string, want string) int {
	n := 0
	for _, l := range lines {
		if l == want {
			n++
		}
	}
	return n
}

func TestMarkdownSynthetic(t *testing.T) {
	md := render(t, synthSource(), Markdown)
	outside := mdOutsideFences(t, md)
	for _, tc := range []struct {
		line string
		n    int
	}{
		{`# Fix \<the\> parser`, 1},
		{"## You", 2},
		{"### Assistant", 2},
		{"#### Bash", 1},
		{"#### Edit `/work/app/main.go`", 1},
		{"#### Write `/work/app/run.go`", 1},
		{"*12 lines · // run starts the app*", 1},
		{"**Error:**", 1},
		{"*Result: (empty)*", 1},
		{"*✓ Completed in 12.3s · $0.0123*", 1},
		{"*✗ Failed in 2.0s · $0.5000*", 1},
		{"*Command /compact*", 1},
		{"- **Status:** ✗ failed", 1},
		{"- **Duration:** 14.3s over 2 turns", 1},
		{"- **Cost:** $0.5123", 1},
	} {
		if got := countLines(outside, tc.line); got != tc.n {
			t.Errorf("line %q outside fences %d times, want %d", tc.line, got, tc.n)
		}
	}
	// The result that holds ``` and ```` is fenced with five backticks.
	if !strings.Contains(md, "`````text\nok  \tapp\t0.01s\n```\n````\nthis tries to close the fence\n`````\n") {
		t.Errorf("result fence not widened:\n%s", md)
	}
	if !strings.Contains(md, "```diff\n--- a/work/app/main.go\n+++ b/work/app/main.go\n@@ -1,1 +1,3 @@\n-func main() {}\n+func main() {\n+\trun()\n+}\n```") {
		t.Errorf("Edit diff missing:\n%s", md)
	}
	// The summary comes right after the last event it covers (#20).
	if i, j := strings.Index(md, "Summary of earlier conversation"), strings.Index(md, "*✓ Completed in 12.3s"); i < j {
		t.Errorf("compaction summary before event #20")
	}
}

// allowedTags are the elements an HTML export may contain.
var allowedTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "main": true, "header": true,
	"footer": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "dl": true, "dt": true,
	"dd": true, "section": true, "div": true, "p": true, "span": true, "code": true, "pre": true, "details": true,
	"summary": true, "ul": true, "ol": true, "li": true, "blockquote": true, "table": true, "thead": true,
	"tbody": true, "tr": true, "th": true, "td": true, "hr": true, "br": true, "a": true, "strong": true,
	"em": true, "del": true,
}

var voidTags = map[string]bool{"meta": true, "hr": true, "br": true}

// checkHTML tokenizes an export and fails on an unknown or unbalanced
// tag, a script, an event-handler attribute, or anything that would load
// a resource.
func checkHTML(t *testing.T, doc string) {
	t.Helper()
	if !strings.HasPrefix(doc, "<!DOCTYPE html>\n") {
		t.Errorf("no doctype")
	}
	z := html.NewTokenizer(strings.NewReader(doc))
	var stack []string
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if !errors.Is(z.Err(), io.EOF) {
				t.Fatal(z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			if !allowedTags[tok.Data] {
				t.Fatalf("unexpected <%s> in export", tok.Data)
			}
			for _, a := range tok.Attr {
				switch {
				case strings.HasPrefix(a.Key, "on"), a.Key == "src", a.Key == "srcset":
					t.Fatalf("attribute %s=%q in export", a.Key, a.Val)
				case a.Key == "href" && !safeURL(a.Val):
					t.Fatalf("unsafe href %q", a.Val)
				case a.Key == "style" && strings.Contains(a.Val, "url("):
					t.Fatalf("style loads %q", a.Val)
				}
			}
			if tt == html.StartTagToken && !voidTags[tok.Data] {
				stack = append(stack, tok.Data)
			}
		case html.EndTagToken:
			if len(stack) == 0 || stack[len(stack)-1] != tok.Data {
				t.Fatalf("</%s> does not close %v", tok.Data, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements %v", stack)
	}
	if strings.Contains(doc, "@import") || strings.Contains(doc, "url(") {
		t.Errorf("export loads something through CSS")
	}
}

func TestHTMLSynthetic(t *testing.T) {
	doc := render(t, synthSource(), HTML)
	checkHTML(t, doc)
	for _, want := range []string{
		"<title>Fix &lt;the&gt; parser · Lazuli</title>",
		"Fix the parser &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; add a test.",
		`<span class="l del">-func main() {}` + "\n</span>",
		`<span class="l ins">+	run()` + "\n</span>",
		`<details class="result err" id="e13">`,
		`<details class="compaction">`,
		"prefers-color-scheme: dark",
		`<p class="done ok" id="e20">✓ Completed in 12.3s · $0.0123</p>`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(doc, "<script") {
		t.Errorf("HTML contains a script element")
	}
}

// decodeJSONExport parses a JSON export and checks that its events are
// src's, byte for byte through the store's codec.
func decodeJSONExport(t *testing.T, doc string, src Source) JSONDocument {
	t.Helper()
	var d JSONDocument
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("JSON export does not parse: %v", err)
	}
	if d.Format != JSONFormatName || d.Version != JSONVersion {
		t.Errorf("format %q version %d", d.Format, d.Version)
	}
	if d.Session.ID != src.Session.ID || d.Session.DisplayName != src.Session.DisplayName() || len(d.Compactions) != len(src.Compactions) {
		t.Errorf("session %+v, %d compactions", d.Session, len(d.Compactions))
	}
	if len(d.Events) != len(src.Events) {
		t.Fatalf("%d events, want %d", len(d.Events), len(src.Events))
	}
	for i, je := range d.Events {
		want := src.Events[i]
		e, err := codec.DecodeEventJSON(je.Event)
		if err != nil {
			t.Fatalf("event %d: %v", je.Seq, err)
		}
		if je.Seq != want.Seq || je.Kind != want.Kind || !sameEvent(e, want.Event) {
			t.Errorf("event %d = %+v, want %+v", je.Seq, e, want.Event)
		}
	}
	return d
}

// sameEvent compares events, their inputs as compact JSON.
func sameEvent(a, b codec.Event) bool {
	ai, bi := a.Input, b.Input
	a.Input, b.Input = nil, nil
	if !reflect.DeepEqual(a, b) {
		return false
	}
	return bytes.Equal(compactJSON(ai), compactJSON(bi))
}

func compactJSON(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return []byte("null")
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func TestJSONSynthetic(t *testing.T) {
	src := synthSource()
	doc := render(t, src, JSON)
	d := decodeJSONExport(t, doc, src)
	if d.Compactions[0].AfterSeq != 20 || d.Session.Completed == nil || *d.Session.Completed {
		t.Errorf("document = %+v", d)
	}
	empty := render(t, NewSource(store.Session{ID: 9}, nil, nil), JSON)
	if d := decodeJSONExport(t, empty, NewSource(store.Session{ID: 9}, nil, nil)); d.Events == nil || d.Compactions == nil {
		t.Errorf("empty session: events %v compactions %v, want empty arrays", d.Events, d.Compactions)
	}
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// Real transcripts, imported the way `lazuli import` does, export to all
// three formats from a read-only store that stays byte-identical.
func TestFixtureTranscripts(t *testing.T) {
	for _, tc := range []struct {
		name, rel string
		prompts   bool // the transcript holds the user's prompts
	}{
		{"claude stream", filepath.Join("real-cli", "claude-a-multitool", "stdout.jsonl"), false},
		{"claude transcript", filepath.Join("transcripts", "B_claude-code-log_256ba646-2c15-437a-98e9-4171aafd030e.jsonl"), true},
		{"codex rollout", filepath.Join("transcripts", "D_agent-sessions_codex-small.jsonl"), true},
		{"codex exec", filepath.Join("real-cli", "codex-a-multitool", "stdout.jsonl"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := fixtureEvents(t, tc.rel)
			path := storeWith(t, "fixture <"+tc.name+">", events)
			before := fileHash(t, path)
			src := loadReadOnly(t, path)
			if len(src.Events) == 0 {
				t.Fatal("no events loaded")
			}
			md := render(t, src, Markdown)
			outside := mdOutsideFences(t, md)
			if countLines(outside, "# fixture \\<"+tc.name+"\\>") != 1 || countLines(outside, "### Assistant") == 0 ||
				(tc.prompts && countLines(outside, "## You") == 0) {
				t.Errorf("Markdown export lacks its title, prompts or replies:\n%.3000s", md)
			}
			checkHTML(t, render(t, src, HTML))
			decodeJSONExport(t, render(t, src, JSON), src)
			if rep := Scan(src); len(rep.Findings) != 0 {
				t.Errorf("false positives in a real transcript: %+v", rep.Findings)
			}
			if fileHash(t, path) != before {
				t.Error("exporting changed the store file")
			}
		})
	}
}

func TestDefaultFileName(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Format
		want string
	}{
		{"", Markdown, "S3.md"},
		{"Fix the parser", HTML, "S3-fix-the-parser.html"},
		{"  ../../etc/passwd  ", JSON, "S3-etc-passwd.json"},
		{"Überprüfung: café ☕ 2", Markdown, "S3-überprüfung-café-2.md"},
		{"<>:\"/\\|?*", Markdown, "S3.md"},
		{strings.Repeat("word ", 40), Markdown, "S3-" + strings.TrimSuffix(strings.Repeat("word-", 12), "-") + ".md"},
	} {
		s := store.Session{ID: 3, Name: tc.name}
		if got := DefaultFileName(s, tc.f); got != tc.want {
			t.Errorf("DefaultFileName(%q, %s) = %q, want %q", tc.name, tc.f, got, tc.want)
		}
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]Format{"a.md": Markdown, "b.MARKDOWN": Markdown, "c.html": HTML, "d.htm": HTML, "e.json": JSON, "f.txt": "", "g": ""} {
		got, ok := FormatOf(path)
		if got != want || ok != (want != "") {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	lines := strings.Repeat("line\n", 250)
	got, note := truncate(lines, maxResultLines)
	if strings.Count(got, "\n") != 200 || note != "… 50 more lines" {
		t.Errorf("truncate(250 lines) = %d lines, %q", strings.Count(got, "\n"), note)
	}
	huge := strings.Repeat("é", maxResultBytes)
	got, note = truncate(huge, maxResultLines)
	if len(got) > maxResultBytes || !strings.HasPrefix(note, "… ") || !strings.HasSuffix(note, " more bytes") || !strings.HasPrefix(huge, got) {
		t.Errorf("truncate(huge line) = %d bytes, %q", len(got), note)
	}
	if got, note := truncate("short\n", maxResultLines); got != "short\n" || note != "" {
		t.Errorf("truncate(short) = %q, %q", got, note)
	}
}

func TestOpenFence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"text", ""},
		{"```go\ncode\n```", ""},
		{"```go\ncode", "```"},
		{"~~~~\n```\n~~~~", ""},
		{"````\n```\n", "````"},
		{"    ```\nindented is code, not a fence", ""},
		{"``` not `a` fence", ""},
	} {
		if got := openFence(tc.in); got != tc.want {
			t.Errorf("openFence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCodeSpan(t *testing.T) {
	for in, want := range map[string]string{"ls": "`ls`", "a`b": "``a`b``", "`x`": "`` `x` ``", "a\nb": "`a b`"} {
		if got := codeSpan(in); got != want {
			t.Errorf("codeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadMissingSession(t *testing.T) {
	path := storeWith(t, "x", []codec.Event{codec.UserMessage("hi")})
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Load(context.Background(), st, 99); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load(missing) = %v, want ErrNotFound", err)
	}
}
