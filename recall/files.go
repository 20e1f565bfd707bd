package recall

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
)

// RecentEditsArgs are recent_edits' arguments.
type RecentEditsArgs struct {
	Path  string `json:"path,omitempty" jsonschema:"only this file (relative to its worktree, or a path ending with it); with a path each edit comes with its diff"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many edits (1 to 200; default 20)"`
	Paging
}

// FileHistoryArgs are file_history's arguments.
type FileHistoryArgs struct {
	Path string `json:"path" jsonschema:"the file, relative to its worktree (a path ending with it matches too)"`
	Paging
}

// Limits of the file tools.
const (
	defaultEdits   = 20
	maxEdits       = 200
	diffLines      = 80 // lines of one diff shown
	historyChanges = 40 // rows file_history shows the diff of, newest first
)

// RecentEdits lists the files sessions changed, newest first: the session
// and its event, the action and how often; with a path, the diff of each.
func (h *History) RecentEdits(ctx context.Context, a RecentEditsArgs) (Answer, error) {
	return paged(ctx, h, ToolRecentEdits, a, a.Paging, h.renderRecentEdits)
}

type sourcedEdit struct {
	src *source
	insight.EditRow
}

func (h *History) renderRecentEdits(ctx context.Context, a RecentEditsArgs) (string, error) {
	limit := a.Limit
	switch {
	case limit == 0:
		limit = defaultEdits
	case limit < 0 || limit > maxEdits:
		return "", badArg("limit %d: want 1 to %d", limit, maxEdits)
	}
	path := strings.TrimSpace(a.Path)
	var b strings.Builder
	b.WriteString("# Recent edits")
	if path != "" {
		b.WriteString(" of " + mdCell(path))
	}
	b.WriteString("\n\n")
	var rows []sourcedEdit
	for _, s := range h.sources {
		if s.insight == nil {
			b.WriteString("Note: " + noInsight(s).Error() + "\n")
			continue
		}
		edits, err := s.edits(ctx, path, limit)
		if err != nil {
			return "", err
		}
		for _, e := range edits {
			rows = append(rows, sourcedEdit{s, e})
		}
	}
	slices.SortStableFunc(rows, func(x, y sourcedEdit) int { return cmp.Compare(y.At, x.At) })
	if len(rows) > limit {
		rows = rows[:limit]
	}
	if len(rows) == 0 {
		b.WriteString("No edits.\n")
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "- %s `%s` %s ×%d · %s · %s · %s · [open](%s)\n", h.cite(r.src, r.SessionID, r.LastSeq),
			mdCell(r.Path), r.Action, r.Count, mdCell(r.Session), mdCell(r.Worktree), r.At, link(r.src, r.SessionID, r.LastSeq))
		if path != "" {
			if err := h.writeChanges(ctx, &b, r.src, r.SessionID, r.Path, r.LastSeq); err != nil {
				return "", err
			}
		}
	}
	return b.String(), nil
}

// FileHistory lists the changes sessions made to a file, oldest first,
// each with the diff of the session's last change of it (for the newest
// historyChanges rows).
func (h *History) FileHistory(ctx context.Context, a FileHistoryArgs) (Answer, error) {
	return paged(ctx, h, ToolFileHistory, a, a.Paging, h.renderFileHistory)
}

func (h *History) renderFileHistory(ctx context.Context, a FileHistoryArgs) (string, error) {
	path := strings.TrimSpace(a.Path)
	if path == "" {
		return "", badArg("path is empty: name a file")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# History of %s\n\n", mdCell(path))
	var rows []sourcedEdit
	for _, s := range h.sources {
		if s.insight == nil {
			b.WriteString("Note: " + noInsight(s).Error() + "\n")
			continue
		}
		edits, err := s.edits(ctx, path, -1)
		if err != nil {
			return "", err
		}
		for _, e := range edits {
			rows = append(rows, sourcedEdit{s, e})
		}
	}
	if len(rows) == 0 {
		b.WriteString("No session changed it.\n")
		return b.String(), nil
	}
	slices.SortStableFunc(rows, func(x, y sourcedEdit) int { return cmp.Compare(x.At, y.At) }) // oldest first
	older := max(len(rows)-historyChanges, 0)
	for i, r := range rows {
		fmt.Fprintf(&b, "## %s `%s` %s ×%d · %s · %s · %s · [open](%s)\n\n", h.cite(r.src, r.SessionID, r.LastSeq), mdCell(r.Path),
			r.Action, r.Count, mdCell(r.Session), mdCell(r.Worktree), r.At, link(r.src, r.SessionID, r.LastSeq))
		if i < older {
			b.WriteString("(diff left out: an older change; read_session shows it)\n\n")
			continue
		}
		if err := h.writeChanges(ctx, &b, r.src, r.SessionID, r.Path, r.LastSeq); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// edits returns the changes of the files sessions made, newest first:
// every file's (limit rows) when path is empty, else path's.
func (src *source) edits(ctx context.Context, path string, limit int) ([]insight.EditRow, error) {
	if path == "" {
		return src.insight.Files().RecentEdits(ctx, limit)
	}
	return src.insight.Files().Edits(ctx, strings.TrimPrefix(path, "./"), limit)
}

// writeChanges writes the diff of the change the session's event seq
// made to path, under its citation (the event's earlier changes of the
// same file are in its transcript).
func (h *History) writeChanges(ctx context.Context, b *strings.Builder, src *source, session int64, path string, seq int64) error {
	evs, err := src.st.Events().Range(ctx, session, seq, seq)
	if err == nil && seq > 1 {
		// The session's Init (its first event) says the folder its
		// paths are relative to.
		var first []store.StoredEvent
		first, err = src.st.Events().Range(ctx, session, 1, 1)
		evs = append(first, evs...)
	}
	if err != nil {
		return fmt.Errorf("read S%d: %w", session, err)
	}
	for _, c := range insight.FileChanges(evs, src.st.Path(), path) {
		for _, f := range c.Files {
			fmt.Fprintf(b, "%s %s:\n", h.cite(src, session, c.Seq), c.Tool)
			writeDiff(b, f)
		}
	}
	return nil
}

// writeDiff writes f as a fenced unified diff of at most diffLines lines.
func writeDiff(b *strings.Builder, f editdiff.File) {
	var d strings.Builder
	for i, l := range f.Lines {
		if i == diffLines {
			fmt.Fprintf(&d, "… %d more lines\n", len(f.Lines)-i)
			break
		}
		switch l.Op {
		case editdiff.Insert:
			d.WriteString("+")
		case editdiff.Delete:
			d.WriteString("-")
		case editdiff.Equal:
			d.WriteString(" ")
		}
		d.WriteString(l.Text + "\n")
	}
	writeFence(b, "diff", d.String())
}

// writeFence writes text in a code fence longer than any run of
// backticks in it.
func writeFence(b *strings.Builder, lang, text string) {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	b.WriteString(fence + lang + "\n" + text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n\n")
}
