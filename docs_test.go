package main

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// docFiles are README.md and every Markdown file under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestReadmeFits: the README fits on a screen or two; the manual is in docs/.
func TestReadmeFits(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 250 {
		t.Errorf("README.md has %d lines, want at most 250 (move the details to docs/)", n)
	}
}

// mdDoc is a parsed Markdown file: its links and its headings' anchors.
type mdDoc struct {
	links   []string
	anchors map[string]bool
}

var docParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

func parseDoc(t *testing.T, path string) mdDoc {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := mdDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	root := docParser.Parser().Parse(text.NewReader(src))
	err = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			doc.links = append(doc.links, string(n.Destination))
		case *ast.Image:
			doc.links = append(doc.links, string(n.Destination))
		case *ast.Heading:
			s := slug(plainText(n, src))
			if k := seen[s]; k > 0 {
				doc.anchors[s+"-"+strconv.Itoa(k)] = true
			} else {
				doc.anchors[s] = true
			}
			seen[s]++
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Explicit anchors: <a id="x"></a> or <a name="x">.
	for _, m := range regexp.MustCompile(`<a (?:id|name)="([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
		doc.anchors[m[1]] = true
	}
	return doc
}

// plainText is a node's text as GitHub reads it for an anchor.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// slug is GitHub's anchor for a heading: lower case, spaces to hyphens,
// and every character other than a letter, digit, mark, hyphen or
// underscore dropped.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Debian and Ubuntu: the .deb": "debian-and-ubuntu-the-deb",
		"From a clone: make install":  "from-a-clone-make-install",
		"Forks (lazuli_forks)":        "forks-lazuli_forks",
		"Using the window":            "using-the-window",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDocLinks: every link and image of README.md and docs/ that is not a
// web address resolves: the file exists and, with a #fragment, the
// Markdown file it names has that heading. Every page of docs/ is reached
// from README.md.
func TestDocLinks(t *testing.T) {
	files := docFiles(t)
	docs := map[string]mdDoc{}
	for _, f := range files {
		docs[f] = parseDoc(t, f)
	}
	reached := map[string]bool{"README.md": true}
	queue := []string{"README.md"}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, link := range docs[f].links {
			u, err := url.Parse(link)
			if err != nil {
				t.Errorf("%s: link %q: %v", f, link, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue // a web address or mailto: not checked offline
			}
			target := f
			if u.Path != "" {
				target = filepath.Clean(filepath.Join(filepath.Dir(f), u.Path))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: %s does not exist", f, link, target)
					continue
				}
			}
			d, isDoc := docs[target]
			if u.Fragment != "" && !isDoc && strings.HasSuffix(target, ".md") {
				d, isDoc = parseDoc(t, target), true // ARCHITECTURE.md, BENCHMARKS.md
			}
			if u.Fragment != "" && (!isDoc || !d.anchors[u.Fragment]) {
				t.Errorf("%s: link %q: %s has no heading #%s", f, link, target, u.Fragment)
			}
			if _, ok := docs[target]; ok && !reached[target] {
				reached[target] = true
				queue = append(queue, target)
			}
		}
	}
	for _, f := range files {
		if !reached[f] {
			t.Errorf("%s is not reached by links from README.md", f)
		}
	}
}
