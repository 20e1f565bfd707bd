package export

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/store"
)

// Source is what an export renders: a session row, its events as the
// transcript shows them (after the read-time filter) and its compactions.
type Source struct {
	Session     store.Session
	Events      []store.StoredEvent // in seq order
	Compactions []store.Compaction  // in AfterSeq order
	// Full holds, by seq, the full text of events that ingestion shortened
	// (the whole tool output, a Write's content; store.FullTextTable).
	// Exports offer it beside the shortened event; the secret scan covers
	// it. nil when the store kept none.
	Full map[int64]string
	// Redactions counts the secrets Redact replaced; 0 for an unredacted
	// source.
	Redactions int
}

// Load reads session id of st into a Source. It only reads: st can be
// opened with store.OpenReadOnly.
func Load(ctx context.Context, st *store.Store, id int64) (Source, error) {
	s, err := st.Sessions().Get(ctx, id)
	if err != nil {
		return Source{}, fmt.Errorf("read session S%d: %w", id, err)
	}
	events, err := st.Events().All(ctx, id)
	if err != nil {
		return Source{}, fmt.Errorf("load events of S%d: %w", id, err)
	}
	comps, err := st.Compactions().Of(ctx, id)
	if err != nil {
		return Source{}, fmt.Errorf("load compactions of S%d: %w", id, err)
	}
	full, err := st.FullText().Of(ctx, id)
	if err != nil {
		return Source{}, fmt.Errorf("load full text of S%d: %w", id, err)
	}
	src := NewSource(s, events, comps)
	for seq, f := range full {
		if src.Full == nil {
			src.Full = map[int64]string{}
		}
		src.Full[seq] = f.Text
	}
	return src, nil
}

// NewSource returns a Source of s with its compactions sorted by AfterSeq.
// events must be in seq order; neither slice is modified.
func NewSource(s store.Session, events []store.StoredEvent, compactions []store.Compaction) Source {
	comps := slices.Clone(compactions)
	slices.SortStableFunc(comps, func(a, b store.Compaction) int { return cmp.Compare(a.AfterSeq, b.AfterSeq) })
	return Source{Session: s, Events: events, Compactions: comps}
}

// Format is an export file format.
type Format string

// The export formats.
const (
	Markdown Format = "md"
	HTML     Format = "html"
	JSON     Format = "json"
)

// Formats lists the export formats in menu order.
var Formats = []Format{Markdown, HTML, JSON}

// ParseFormat parses a format name: md (or markdown), html (or htm), json.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "md", "markdown":
		return Markdown, nil
	case "html", "htm":
		return HTML, nil
	case "json":
		return JSON, nil
	}
	return "", fmt.Errorf("unknown format %q (want md, html or json)", s)
}

// FormatOf returns the format a file name's extension names (.md,
// .markdown, .html, .htm, .json), and false for any other extension.
func FormatOf(path string) (Format, bool) {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	if ext == "" {
		return "", false
	}
	f, err := ParseFormat(ext)
	return f, err == nil
}

// Ext returns the format's file extension with its dot, e.g. ".md".
func (f Format) Ext() string { return "." + string(f) }

// String returns the format's name for people: Markdown, HTML or JSON.
func (f Format) String() string {
	switch f {
	case Markdown:
		return "Markdown"
	case HTML:
		return "HTML"
	case JSON:
		return "JSON"
	}
	return string(f)
}

// maxNameLen caps the session-name part of a default file name, in bytes.
const maxNameLen = 60

// DefaultFileName is the file name an export of s is offered under:
// "S3-fix-the-parser.md" for a session named "Fix the parser", "S3.md" for
// an unnamed one. The name part keeps letters and digits (any script),
// lower-cased, with one '-' for each run of anything else.
func DefaultFileName(s store.Session, f Format) string {
	base := "S" + strconv.FormatInt(s.ID, 10)
	if slug := slugify(s.Name); slug != "" {
		base += "-" + slug
	}
	return base + f.Ext()
}

// slugify reduces a session name to a safe file-name part.
func slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			dash = true
			continue
		}
		sep := dash && b.Len() > 0
		n := utf8.RuneLen(r)
		if sep {
			n++
		}
		if b.Len()+n > maxNameLen {
			break
		}
		if sep {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
		dash = false
	}
	return b.String()
}
