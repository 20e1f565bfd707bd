package views

import (
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/safelink"
)

// LinkActions are the intents of the links in rendered Markdown (a
// transcript's cards, a chronicle report).
type LinkActions interface {
	// OpenLink opens a link the user tapped. raw is one safelink lets
	// open: an http, https or mailto URL, which the desktop opens, or a
	// lazuli:// link, which Lazuli opens itself once the user has
	// confirmed where it goes (ConfirmOpenLink). A link of any other
	// scheme is shown as text and never sent.
	OpenLink(raw string)
}

// safeMarkdown returns the segments of the Markdown text with its links
// made safe (safeLinks). The Markdown is parsed into a widget that is
// never shown, so nothing it holds (an image) is loaded before the
// segments are made safe.
func safeMarkdown(text string, open func(raw string)) []widget.RichTextSegment {
	return safeLinks(widget.NewRichTextFromMarkdown(text).Segments, open)
}

// safeLinks rewrites segs, as Fyne's Markdown parser makes them, so that
// no link opens anything by itself (a hyperlink Fyne made hands its URL to
// the desktop's opener, xdg-open, whatever the scheme):
//
//   - a link safelink lets open (http, https, mailto, lazuli) calls open
//     with its URL when tapped;
//   - any other link (javascript:, file:, ssh:, a custom scheme, a
//     relative or scheme-relative link, one Fyne could not parse) becomes
//     text: its label, then its target in parentheses unless the label is
//     the target (an autolink);
//   - an image becomes a link to it labelled "[image: title]" when its
//     address may be opened, else that label and the address as text: a
//     transcript never loads a file or a URL by being shown.
//
// Paragraphs, lists and tables are rewritten in place; segs is returned.
func safeLinks(segs []widget.RichTextSegment, open func(raw string)) []widget.RichTextSegment {
	for i, s := range segs {
		switch seg := s.(type) {
		case *widget.HyperlinkSegment:
			segs[i] = safeLink(seg, open)
		case *widget.ImageSegment:
			segs[i] = safeImage(seg, open)
		case *widget.ParagraphSegment:
			seg.Texts = safeLinks(seg.Texts, open)
		case *widget.ListSegment:
			seg.Items = safeLinks(seg.Items, open)
		case *widget.TableSegment:
			for _, cell := range seg.Headers {
				safeLinks(cell, open)
			}
			for _, row := range seg.Rows {
				for _, cell := range row {
					safeLinks(cell, open)
				}
			}
		}
	}
	return segs
}

// safeLink is seg opening through open, or the text that replaces it.
func safeLink(seg *widget.HyperlinkSegment, open func(string)) widget.RichTextSegment {
	target := ""
	if seg.URL != nil {
		target = seg.URL.String()
	}
	if seg.URL == nil || safelink.Classify(target) == safelink.Text {
		text := seg.Text
		if target != "" && target != strings.TrimSpace(seg.Text) {
			text += " (" + target + ")"
		}
		style := widget.RichTextStyleInline
		style.TextStyle = seg.TextStyle
		style.SizeName = seg.SizeName
		return &widget.TextSegment{Style: style, Text: text}
	}
	seg.OnTapped = func() { open(target) }
	return seg
}

// safeImage is the link or the text that replaces an image.
func safeImage(seg *widget.ImageSegment, open func(string)) widget.RichTextSegment {
	label := "[image]"
	if seg.Title != "" {
		label = "[image: " + seg.Title + "]"
	}
	target := ""
	if seg.Source != nil {
		target = seg.Source.String()
	}
	if safelink.Opens(target) {
		if u, err := url.Parse(target); err == nil {
			return safeLink(&widget.HyperlinkSegment{Alignment: fyne.TextAlignLeading, Text: label, URL: u}, open)
		}
	}
	if target != "" {
		label += " (" + target + ")"
	}
	return &widget.TextSegment{Style: widget.RichTextStyleInline, Text: label}
}

// ConfirmOpenLink asks whether to follow a lazuli:// link, saying where it
// goes (what: the session, event and store it names, and the link
// itself); open runs on Open. It returns the dialog, shown.
func ConfirmOpenLink(w fyne.Window, what string, open func()) *dialog.ConfirmDialog {
	msg := widget.NewLabel(what)
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Open this Lazuli link?", "Open", "Cancel", msg, func(ok bool) {
		if ok {
			open()
		}
	}, w)
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
	return d
}
