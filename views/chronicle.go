package views

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
)

// ChronicleReport is a written chronicle report, as the report window
// shows it.
type ChronicleReport struct {
	Name       string // standup, tips or improve: names the saved file
	Title      string // "Standup", "Tips", "Where the agent struggled"
	Agent      string // who wrote it: builtin or a backend
	Markdown   string // its citations are lazuli:// links
	Sessions   []string
	Unresolved []string // citations that name no session or event
	Fallback   string   // why the built-in writer wrote it instead of an agent
	// Legend says what a citation names (S12#340@2: event 340 of session
	// S12, in the report's second worktree); shown above the report.
	Legend string
}

// ChronicleActions are the report window's intents; app writes the report
// in the background and answers with Show or ShowError.
type ChronicleActions interface {
	// OpenLink opens a link of the report: a citation's lazuli:// link
	// (the session at the event, once the user has confirmed it) or a web
	// address.
	LinkActions
	// Regenerate writes the report again with agent (one of the writers
	// the view was built with) over the period since (24h, 7d, 30d or all).
	Regenerate(agent, since string)
}

// ChroniclePeriods are the periods offered by Regenerate.
var ChroniclePeriods = []string{"24h", "7d", "30d", "all"}

// ChronicleView is the content of a chronicle report window: the report
// rendered from Markdown, its citations links that open the session at the
// event, and Copy, Save as Markdown and Regenerate with another agent.
type ChronicleView struct {
	a       ChronicleActions
	win     fyne.Window
	report  ChronicleReport
	status  *widget.Label
	legend  *widget.Label // what the citations name, kept in sight
	doc     *widget.RichText
	agent   *widget.Select
	since   *widget.Select
	regen   *widget.Button
	buttons []*widget.Button
	root    fyne.CanvasObject
}

// NewChronicleView builds the view for the window win (the parent of its
// save dialog), the report being written over the period since; writers
// are the Agent menu's choices, in menu order (the first selected).
func NewChronicleView(win fyne.Window, a ChronicleActions, since string, writers []string) *ChronicleView {
	v := &ChronicleView{a: a, win: win}
	v.status = widget.NewLabel("Writing the report…")
	v.status.Wrapping = fyne.TextWrapWord
	v.legend = widget.NewLabel("")
	v.legend.Wrapping = fyne.TextWrapWord
	v.legend.Importance = widget.LowImportance
	v.legend.Hide()
	v.doc = widget.NewRichText()
	v.doc.Wrapping = fyne.TextWrapWord
	copyB := widget.NewButton("Copy", v.Copy)
	save := widget.NewButton("Save as Markdown…", v.onSave)
	v.agent = widget.NewSelect(writers, nil)
	v.agent.SetSelected(writers[0])
	v.since = widget.NewSelect(ChroniclePeriods, nil)
	v.since.SetSelected(since)
	v.regen = widget.NewButton("Regenerate", func() { v.onRegenerate(v.agent.Selected, v.since.Selected) })
	v.buttons = []*widget.Button{copyB, save, v.regen}
	bar := container.NewHBox(copyB, save, layout.NewSpacer(), widget.NewLabel("Since:"), v.since,
		widget.NewLabel("Agent:"), v.agent, v.regen)
	v.root = container.NewBorder(container.NewVBox(bar, v.status, v.legend), nil, nil, nil, container.NewVScroll(v.doc))
	v.setBusy(true)
	return v
}

// Object is the view's root.
func (v *ChronicleView) Object() fyne.CanvasObject { return v.root }

// Report is the report shown.
func (v *ChronicleView) Report() ChronicleReport { return v.report }

// Document is the rendered report (for tests).
func (v *ChronicleView) Document() *widget.RichText { return v.doc }

// Writers are the Agent menu's choices (for tests).
func (v *ChronicleView) Writers() []string { return v.agent.Options }

// Legend is the line that explains the citations, "" when hidden (for
// tests).
func (v *ChronicleView) Legend() string {
	if !v.legend.Visible() {
		return ""
	}
	return v.legend.Text
}

// Status is the line above the report (for tests).
func (v *ChronicleView) Status() string { return v.status.Text }

func (v *ChronicleView) setBusy(busy bool) {
	for _, b := range v.buttons {
		if busy {
			b.Disable()
		} else {
			b.Enable()
		}
	}
}

// Busy says the report is being written by agent.
func (v *ChronicleView) Busy(agent string) {
	v.status.SetText(fmt.Sprintf("Writing the report with %s…", agent))
	v.setBusy(true)
}

// Show shows a written report.
func (v *ChronicleView) Show(r ChronicleReport) {
	v.report = r
	v.doc.Segments = safeMarkdown(r.Markdown, v.a.OpenLink)
	v.doc.Refresh()
	status := fmt.Sprintf("Written by %s · cites %s", r.Agent, display.Plural(len(r.Sessions), "session"))
	if r.Fallback != "" {
		status += " · no agent could write it (" + r.Fallback + ")"
	}
	if n := len(r.Unresolved); n > 0 {
		status += fmt.Sprintf(" · ⚠ %s: %s", unresolvedNote(n), strings.Join(r.Unresolved, " "))
	}
	v.status.SetText(status)
	v.legend.SetText(r.Legend)
	v.legend.Hidden = r.Legend == ""
	v.legend.Refresh()
	if slices.Contains(v.agent.Options, r.Agent) {
		v.agent.SetSelected(r.Agent)
	}
	v.setBusy(false)
	v.regen.Enable()
}

// ShowError says the report could not be written; Regenerate stays
// available.
func (v *ChronicleView) ShowError(err error) {
	v.status.SetText("The report could not be written: " + err.Error())
	v.setBusy(false)
}

// Copy puts the report's Markdown on the clipboard.
func (v *ChronicleView) Copy() {
	fyne.CurrentApp().Clipboard().SetContent(v.report.Markdown)
}

func (v *ChronicleView) onRegenerate(agent, since string) {
	v.Busy(agent)
	v.a.Regenerate(agent, since)
}

func (v *ChronicleView) onSave() {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			if err != nil {
				dialog.ShowError(err, v.win)
			}
			return
		}
		if err := v.SaveTo(w); err != nil {
			dialog.ShowError(err, v.win)
		}
	}, v.win)
	d.SetFileName("chronicle-" + v.report.Name + ".md")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".md"}))
	d.Show()
}

// SaveTo writes the report's Markdown to w and closes it.
func (v *ChronicleView) SaveTo(w fyne.URIWriteCloser) error {
	_, err := w.Write([]byte(v.report.Markdown))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("save the report to %s: %w", w.URI(), err)
	}
	return nil
}

// unresolvedNote says how many citations resolve to nothing.
func unresolvedNote(n int) string {
	if n == 1 {
		return "1 citation names no session or event and is marked"
	}
	return fmt.Sprintf("%d citations name no session or event and are marked", n)
}
