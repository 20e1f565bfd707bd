package views

// This file holds what the window shows of permissions: the mode button
// in the session header, the dialog that edits a session's (or the
// project's) mode and rules, and the Allow / Deny / Always allow dialog
// that answers an agent's permission prompt.

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// PermissionActions are the intents of the permission settings.
type PermissionActions interface {
	// EditPermissions opens the permission settings of ref.
	EditPermissions(ref SessionRef)
}

// ModeChoice is one permission mode the settings offer.
type ModeChoice struct {
	Value string // as stored: bypass, acceptEdits, plan, ask
	Title string // as shown
}

// PermissionSettings is what the permission settings dialog edits.
type PermissionSettings struct {
	Title   string       // what is edited: "S3 fix the build" or "Project defaults"
	Modes   []ModeChoice // the modes, in menu order
	Current store.Permissions
	// Inherited is the project's mode title, offered as "Project default
	// (…)"; "" when the dialog edits the project's defaults.
	Inherited string
	// ProjectRules are the project's rules, shown (not edited) below the
	// session's own.
	ProjectRules []store.PermissionRule
	// Parse reads a rule as typed ("Bash(git *)") with an action; Spec
	// writes one back.
	Parse func(action, spec string) (store.PermissionRule, error)
	Spec  func(store.PermissionRule) string
	// AgentNotes says what the agents' CLIs cannot apply (Codex, Gemini
	// CLI, …; each note names its CLI), for the policy as saved (given the
	// edited permissions).
	AgentNotes func(store.Permissions) []string
	// ReadOnly, when set, says in one line why nothing can be changed
	// (a read-only window): the dialog then only shows the permissions,
	// with every control disabled and Close instead of Save and Cancel.
	ReadOnly string
}

// permissionsSize is the permission settings dialog's size, fixed: its
// body scrolls, so adding a rule or a Codex note neither grows nor moves
// it.
var permissionsSize = fyne.NewSize(640, 520)

// inheritTitle is the mode menu's first entry on a session.
func inheritTitle(project string) string { return "Project default (" + project + ")" }

// PermissionDialog is the open permission settings dialog.
type PermissionDialog struct {
	s      PermissionSettings
	cur    store.Permissions
	mode   *widget.Select
	rules  *fyne.Container
	action *widget.Select
	spec   *widget.Entry
	errMsg *widget.Label
	codex  *widget.Label
	body   *container.Scroll // the rules and the Codex note
	why    *widget.Label     // why nothing can be changed (ReadOnly); nil when it can
	d      dialog.Dialog     // a *dialog.ConfirmDialog (Save, Cancel) unless ReadOnly
}

// ShowPermissionSettings shows a dialog over w to edit s.Current: the
// mode, and the rules (each with a Remove button; a new one typed as
// claude writes them, with an action). Save calls save with the result;
// Cancel calls nothing.
func ShowPermissionSettings(w fyne.Window, s PermissionSettings, save func(store.Permissions)) *PermissionDialog {
	p := &PermissionDialog{s: s, cur: store.Permissions{Mode: s.Current.Mode, Rules: append([]store.PermissionRule(nil), s.Current.Rules...)}}
	var titles []string
	if s.Inherited != "" {
		titles = append(titles, inheritTitle(s.Inherited))
	}
	for _, m := range s.Modes {
		titles = append(titles, m.Title)
	}
	p.mode = widget.NewSelect(titles, func(string) { p.cur.Mode = p.modeValue(); p.refreshCodex() })
	p.rules = container.NewVBox()
	p.action = widget.NewSelect([]string{"allow", "deny", "ask"}, nil)
	p.action.SetSelected("allow")
	p.spec = widget.NewEntry()
	p.spec.SetPlaceHolder("Bash(git *)  ·  Edit(src/**)  ·  WebFetch")
	p.spec.OnSubmitted = func(string) { p.add() }
	add := widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), p.add)
	p.errMsg = widget.NewLabel("")
	p.errMsg.Importance = widget.DangerImportance
	p.errMsg.Hide()
	p.codex = widget.NewLabel("")
	p.codex.Wrapping = fyne.TextWrapWord
	p.codex.Importance = widget.WarningImportance
	p.mode.SetSelected(p.modeTitle(s.Current.Mode))
	p.refreshRules()
	form := widget.NewForm(widget.NewFormItem("Mode", p.mode))
	// The title, mode and the new rule's entry stay put; the rules and the
	// notes scroll between them.
	top := container.NewVBox(widget.NewLabelWithStyle(s.Title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), form,
		widget.NewLabel("Rules"))
	bottom := container.NewVBox(container.NewBorder(nil, nil, p.action, add, p.spec), p.errMsg)
	p.body = container.NewVScroll(container.NewVBox(p.rules, p.codex))
	content := container.NewBorder(top, bottom, nil, nil, p.body)
	if s.ReadOnly != "" {
		p.setReadOnly(s.ReadOnly, add)
		content = container.NewBorder(container.NewVBox(p.why, top), bottom, nil, nil, p.body)
	}
	if s.ReadOnly != "" {
		p.d = dialog.NewCustom("Permissions", "Close", content, w)
	} else {
		p.d = dialog.NewCustomConfirm("Permissions", "Save", "Cancel", content, func(ok bool) {
			if ok {
				save(p.Value())
			}
		}, w)
	}
	p.d.Resize(permissionsSize)
	p.d.Show()
	return p
}

// setReadOnly disables every control of the dialog and says why.
func (p *PermissionDialog) setReadOnly(why string, add *widget.Button) {
	p.why = widget.NewLabelWithStyle(why, fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	p.why.Importance = widget.WarningImportance
	p.why.Wrapping = fyne.TextWrapWord
	p.mode.Disable()
	p.action.Disable()
	p.spec.Disable()
	add.Disable()
	p.refreshRules() // without Remove buttons
}

// ReadOnly returns why the dialog changes nothing; "" when it can.
func (p *PermissionDialog) ReadOnly() string { return p.s.ReadOnly }

// Value returns the permissions as edited.
func (p *PermissionDialog) Value() store.Permissions {
	return store.Permissions{Mode: p.cur.Mode, Rules: append([]store.PermissionRule(nil), p.cur.Rules...)}
}

// SetMode selects the mode titled title, as a click would.
func (p *PermissionDialog) SetMode(title string) { p.mode.SetSelected(title) }

// AddRule adds a rule as typed, as the Add button does; it reports the
// error shown, if any.
func (p *PermissionDialog) AddRule(action, spec string) string {
	p.action.SetSelected(action)
	p.spec.SetText(spec)
	p.add()
	if p.errMsg.Hidden {
		return ""
	}
	return p.errMsg.Text
}

// RemoveRule removes the session's rule i, as its Remove button does.
func (p *PermissionDialog) RemoveRule(i int) {
	if i >= 0 && i < len(p.cur.Rules) && p.s.ReadOnly == "" {
		p.cur.Rules = append(p.cur.Rules[:i:i], p.cur.Rules[i+1:]...)
		p.refreshRules()
	}
}

// CodexNote returns what the dialog says Codex cannot apply.
func (p *PermissionDialog) CodexNote() string { return p.codex.Text }

// Save saves and closes the dialog, as its Save button does; a read-only
// dialog has none.
func (p *PermissionDialog) Save() {
	if d, ok := p.d.(*dialog.ConfirmDialog); ok {
		d.Confirm()
	}
}

func (p *PermissionDialog) modeTitle(value string) string {
	for _, m := range p.s.Modes {
		if m.Value == value {
			return m.Title
		}
	}
	if p.s.Inherited != "" {
		return inheritTitle(p.s.Inherited)
	}
	return p.s.Modes[0].Title
}

func (p *PermissionDialog) modeValue() string {
	for _, m := range p.s.Modes {
		if m.Title == p.mode.Selected {
			return m.Value
		}
	}
	return ""
}

// add adds the typed rule, or says why it cannot.
func (p *PermissionDialog) add() {
	if p.s.ReadOnly != "" {
		return
	}
	r, err := p.s.Parse(p.action.Selected, p.spec.Text)
	if err != nil {
		p.errMsg.SetText(err.Error())
		p.errMsg.Show()
		return
	}
	p.errMsg.Hide()
	r.Source = "session"
	if p.s.Inherited == "" {
		r.Source = "project"
	}
	r.AddedAt = time.Now().UTC().Format(store.TimeFormat)
	p.cur.Rules = append(p.cur.Rules, r)
	p.spec.SetText("")
	p.refreshRules()
}

// refreshRules lists the rules: the edited ones with Remove buttons, then
// the project's, greyed.
func (p *PermissionDialog) refreshRules() {
	var rows []fyne.CanvasObject
	for i, r := range p.cur.Rules {
		rm := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { p.RemoveRule(i) })
		rm.Importance = widget.LowImportance
		if p.s.ReadOnly != "" {
			rm.Disable()
		}
		rows = append(rows, container.NewBorder(nil, nil, nil, rm, widget.NewLabel(ruleLine(r, p.s.Spec))))
	}
	if p.s.Inherited != "" {
		for _, r := range p.s.ProjectRules {
			l := widget.NewLabel(ruleLine(r, p.s.Spec) + "  (project)")
			l.Importance = widget.LowImportance
			rows = append(rows, l)
		}
	}
	if len(rows) == 0 {
		l := widget.NewLabel("No rules: the mode decides.")
		l.Importance = widget.LowImportance
		rows = append(rows, l)
	}
	p.rules.Objects = rows
	p.rules.Refresh()
	p.refreshCodex()
}

// refreshCodex says what the agents other than Claude cannot apply of the
// edited permissions.
func (p *PermissionDialog) refreshCodex() {
	var notes []string
	if p.s.AgentNotes != nil {
		notes = p.s.AgentNotes(p.Value())
	}
	if len(notes) == 0 {
		p.codex.SetText("")
		p.codex.Hide()
		return
	}
	p.codex.SetText("Not applied by every agent:\n• " + strings.Join(notes, "\n• "))
	p.codex.Show()
}

// ruleLine is a rule as listed: "allow  Bash(git *)".
func ruleLine(r store.PermissionRule, spec func(store.PermissionRule) string) string {
	return fmt.Sprintf("%-5s  %s", r.Action, spec(r))
}

// PermissionChoice is the user's answer in the permission prompt dialog.
type PermissionChoice int

// The answers of the permission prompt dialog.
const (
	ChoiceDeny PermissionChoice = iota
	ChoiceAllow
	ChoiceAlways
)

// PermissionPrompt is an agent's request for permission, as the dialog
// shows it.
type PermissionPrompt struct {
	Session string // the session's name
	Tool    string // Bash, Edit, …
	Subject string // the command or file; "" for the tool as a whole
	Input   string // the tool's input, pretty-printed
}

// PromptDialog is an open permission prompt dialog.
type PromptDialog struct {
	d        *dialog.CustomDialog
	answer   func(PermissionChoice)
	answered bool
}

// ShowPermissionPrompt asks the user, over w, whether the agent may run
// the tool of p: Allow (this once), Deny, or Always allow (recorded as a
// session rule). answer is called once, with the choice; closing the
// dialog any other way denies.
func ShowPermissionPrompt(w fyne.Window, p PermissionPrompt, answer func(PermissionChoice)) *PromptDialog {
	pd := &PromptDialog{answer: answer}
	what := p.Tool
	if p.Subject != "" {
		what = p.Tool + ": " + p.Subject
	}
	head := widget.NewLabel(fmt.Sprintf("The agent of %s asks to run", p.Session))
	head.Wrapping = fyne.TextWrapWord
	subject := widget.NewLabelWithStyle(what, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	subject.Wrapping = fyne.TextWrapBreak
	input := widget.NewLabelWithStyle(p.Input, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	input.Wrapping = fyne.TextWrapBreak
	always := "Always allow " + p.Tool
	if p.Subject != "" {
		always = "Always allow this"
	}
	deny := widget.NewButton("Deny", func() { pd.choose(ChoiceDeny) })
	allow := widget.NewButton("Allow", func() { pd.choose(ChoiceAllow) })
	allow.Importance = widget.HighImportance
	alw := widget.NewButton(always, func() { pd.choose(ChoiceAlways) })
	note := widget.NewLabel("“Always” adds a rule to this session; the Permissions button in the header edits them.")
	note.Importance = widget.LowImportance
	note.Wrapping = fyne.TextWrapWord
	content := container.NewVBox(head, subject, note)
	if p.Input != "" {
		// Up to 10 lines of the input show at once; more scroll.
		line := fyne.MeasureText("M", theme.TextSize(), fyne.TextStyle{Monospace: true}).Height
		lines := min(strings.Count(p.Input, "\n")+1, 10)
		scroll := container.NewVScroll(input)
		scroll.SetMinSize(fyne.NewSize(0, float32(lines)*(line+theme.LineSpacing())+2*theme.InnerPadding()))
		content = container.NewVBox(head, subject, scroll, note)
	}
	pd.d = dialog.NewCustomWithoutButtons("Permission requested", content, w)
	pd.d.SetButtons([]fyne.CanvasObject{deny, alw, allow})
	pd.d.SetOnClosed(func() { pd.choose(ChoiceDeny) })
	pd.d.Resize(fyne.NewSize(560, pd.d.MinSize().Height))
	pd.d.Show()
	return pd
}

// choose answers once and closes the dialog.
func (pd *PromptDialog) choose(c PermissionChoice) {
	if pd.answered {
		return
	}
	pd.answered = true
	pd.answer(c)
	pd.d.Hide()
}

// Choose answers as a click on the button of c would.
func (pd *PromptDialog) Choose(c PermissionChoice) { pd.choose(c) }

// Dismiss closes the dialog without calling answer: the agent stopped
// waiting.
func (pd *PromptDialog) Dismiss() {
	pd.answered = true
	pd.d.Hide()
}
