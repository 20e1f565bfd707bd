package views

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/store"
)

// This file fills a card for each kind of row (card.show calls these).

// showTool fills a tool call: an Edit with its diff, a Write with its
// summary, any other tool with its input behind the toggle.
func (c *card) showTool(r *transcriptRow, d *rowDetail) {
	c.tint()
	c.setTitle(d.title, theme.ColorNamePrimary)
	c.setDetail(d.param)
	if e := &c.t.rows.events[r.event].Event; isSubagentCall(e) {
		c.openBox.Show()
	}
	if len(d.diffs) > 0 {
		c.showDiff(d.diffs)
		return
	}
	if full, ok := c.t.cards.fullOf(c.id); ok && r.kind == rowWrite {
		c.showFull(r, full, "content")
		return
	}
	if d.input == "" || r.kind == rowWrite {
		return
	}
	c.toggle.setText(map[bool]string{false: "▸ input", true: "▾ input"}[r.open])
	c.toggle.Show()
	if r.open {
		c.monoLabel().Importance = widget.MediumImportance
		c.mono.Hidden = false
		c.mono.SetText(expandTabs(d.input))
	}
}

func (c *card) showDiff(diffs []editdiff.File) {
	added, removed := 0, 0
	for _, f := range diffs {
		a, r := f.Stats()
		added, removed = added+a, removed+r
	}
	if len(diffs) == 1 {
		c.setDetail(diffs[0].Path)
	} else {
		c.setDetail(itoa(len(diffs)) + " files")
	}
	c.added.Text, c.added.Color = "+"+itoa(added), theme.Color(theme.ColorNameSuccess)
	c.removed.Text, c.removed.Color = "−"+itoa(removed), theme.Color(theme.ColorNameError)
	c.added.Show()
	c.removed.Show()
	c.diffView().Hidden = false
	c.diff.set(diffs)
}

// showFull offers the full text of a shortened event behind the toggle,
// shown in place of what ingestion kept when open.
func (c *card) showFull(r *transcriptRow, full, what string) {
	lines := strings.Count(strings.TrimRight(full, "\n"), "\n") + 1
	c.toggle.setText(map[bool]string{false: "▸ full " + what + " (" + display.Plural(lines, "line") + ")", true: "▾ full " + what}[r.open])
	c.toggle.Show()
	if r.open {
		c.monoLabel().Importance = widget.MediumImportance
		c.mono.Hidden = false
		c.mono.SetText(expandTabs(full))
	}
}

// showResult fills a tool result: monospace text, red for an error, with
// a note when ingestion truncated it, and the full output behind the
// toggle when the store kept it.
func (c *card) showResult(r *transcriptRow, e *codec.Event, d *rowDetail) {
	c.tint()
	title, name := d.title+" result", theme.ColorNamePlaceHolder
	if e.IsError {
		title, name = d.title+" error", theme.ColorNameError
	}
	if e.Content == "" {
		title += " (empty)"
	}
	c.setTitle(title, name)
	c.title.TextSize = theme.Size(theme.SizeNameCaptionText)
	full, hasFull := c.t.cards.fullOf(c.id)
	if hasFull {
		c.showFull(r, full, "output")
	}
	if e.Content != "" && !(hasFull && r.open) {
		text := e.Content
		if isSubagentResult(e) {
			text = agentReportText(e.Content, full, hasFull) // the report, not the hand-back lines
		}
		c.monoLabel().Importance = widget.MediumImportance
		if e.IsError {
			c.mono.Importance = widget.DangerImportance
		}
		c.mono.Hidden = false
		c.mono.SetText(expandTabs(text))
	}
	if d.truncated != "" && !(hasFull && r.open) {
		c.noteLabel().Hidden = false
		c.note.SetText(d.truncated)
	}
}

func (c *card) showCompaction(r *transcriptRow, comp *store.Compaction) {
	c.bg.FillColor = theme.Color(theme.ColorNameHeaderBackground)
	c.setTitle("Summary of earlier conversation", theme.ColorNameForeground)
	c.toggle.setText(map[bool]string{false: "▸ show", true: "▾ hide"}[r.open])
	c.toggle.Show()
	if r.open {
		c.showMarkdown(comp.Summary)
	}
}

// showThinking fills the agent's thinking: collapsed to its first line
// until opened.
func (c *card) showThinking(r *transcriptRow, text string) {
	c.setTitle("Thinking", theme.ColorNamePlaceHolder)
	c.title.TextStyle = fyne.TextStyle{Italic: true}
	c.toggle.setText(map[bool]string{false: "▸ show", true: "▾ hide"}[r.open])
	c.toggle.Show()
	if !r.open {
		c.setDetail(firstLine(text))
		return
	}
	c.textLabel().Hidden = false
	c.text.SetText(expandTabs(text))
}

// showFailure fills why a run failed (store.RunFailed): what the agent
// said on stderr, or why Lazuli stopped it. It is never sent to an agent.
func (c *card) showFailure(text string) {
	c.setTitle("Why the run failed", theme.ColorNameError)
	c.bg.FillColor = withAlpha(theme.Color(theme.ColorNameError), 0x1a)
	c.textLabel().Hidden = false
	c.text.SetText(expandTabs(text))
}

// showMarkdown fills assistant text, a plan or a summary, rendered from
// Markdown with its links made safe (safeLinks): one the desktop may open
// and a lazuli:// link go through the OpenLink intent, any other is text.
func (c *card) showMarkdown(text string) {
	if c.md == nil {
		c.md = widget.NewRichText()
		c.md.Wrapping = fyne.TextWrapWord
		c.body.Add(c.md)
	}
	c.md.Segments = polishMarkdown(safeMarkdown(expandTabs(text), c.t.actions.OpenLink))
	c.md.Hidden = false // Show after Refresh would lay all the text out again
	c.md.Refresh()
}

func (c *card) textLabel() *widget.Label {
	return c.lazyLabel(&c.text, func(l *widget.Label) {
		l.Wrapping = fyne.TextWrapWord
		l.Selectable = true
	})
}

func (c *card) monoLabel() *widget.Label {
	return c.lazyLabel(&c.mono, func(l *widget.Label) {
		l.Wrapping = fyne.TextWrapBreak
		l.TextStyle.Monospace = true
		l.Selectable = true
	})
}

func (c *card) noteLabel() *widget.Label {
	return c.lazyLabel(&c.note, func(l *widget.Label) {
		l.TextStyle.Italic = true
		l.Importance = widget.WarningImportance
		l.SizeName = theme.SizeNameCaptionText
	})
}

// lazyLabel returns *p, making it on first use: a label set up by style
// and added to the card's body.
func (c *card) lazyLabel(p **widget.Label, style func(*widget.Label)) *widget.Label {
	if *p == nil {
		l := widget.NewLabel("")
		style(l)
		c.body.Add(l)
		*p = l
	}
	return *p
}
