package views

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The prompt entry's placeholders, with and without a session to send to.
const (
	promptPlaceHolder    = "Message the agent… (Ctrl+Enter to send)"
	noSessionPlaceHolder = "Select or create a session to continue it (Ctrl+N)"
	defaultModelLabel    = "Default model"
)

// PromptBox continues the session shown: a multi-line entry that Ctrl+Enter
// or the Send button sends, a model menu, the status of the selected
// model's agent CLI, and the state of the current run. While a run goes on,
// Send becomes Stop and the user can type the next prompt but not send it.
type PromptBox struct {
	idleNote string // the placeholder without a session; "" for noSessionPlaceHolder
	actions  RunActions

	ref        SessionRef
	hasSession bool
	running    bool
	statusText string
	statusErr  bool
	drafts     map[SessionRef]string // unsent text of the sessions left
	// sending is set from a send until the app says the agent started
	// (PromptStarted) or could not (SendFailed): the text stays in the
	// box meanwhile, and is not sent twice.
	sending bool

	entry     *promptEntry
	rows      *entryRows
	menu      *modelMenu
	button    *widget.Button // Send, or Stop while running
	activity  *widget.Activity
	runLabel  *widget.Label
	runBox    *fyne.Container // activity and runLabel
	status    *widget.RichText
	statusAct *widget.Button // the status's action (Undo), hidden without one
	statusFn  func()
	statusRow *fyne.Container
	sendErr   *widget.Label // why the last send failed, under the entry
	root      fyne.CanvasObject
}

// NewPromptBox returns a prompt box without a session (disabled) that sends
// its intents to a.
func NewPromptBox(a RunActions) *PromptBox {
	p := &PromptBox{actions: a, drafts: map[SessionRef]string{}}
	p.entry = newPromptEntry(p.onSend)
	p.entry.OnChanged = p.onTextChanged
	p.rows = newEntryRows(p.entry)
	p.menu = newModelMenu(p.onModelChanged)
	p.button = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), p.onButton)
	p.activity = widget.NewActivity()
	p.runLabel = widget.NewLabel("")
	p.status = newStatusText()
	p.status.Truncation = fyne.TextTruncateEllipsis

	p.statusAct = widget.NewButton("", p.onStatusAction)
	p.statusAct.Importance = widget.LowImportance
	p.statusAct.Hide()

	p.runBox = container.NewHBox(p.activity, p.runLabel)
	p.statusRow = container.NewBorder(nil, nil, p.runBox, p.statusAct, p.status)
	toolbar := container.NewBorder(nil, nil,
		container.New(p.menu.modelWidth, p.menu.model), p.button, p.menu.backendTip)
	p.sendErr = widget.NewLabel("")
	p.sendErr.Importance = widget.DangerImportance
	p.sendErr.Wrapping = fyne.TextWrapWord
	p.sendErr.Hide()
	body := container.NewVBox(p.statusRow, container.New(p.rows, p.entry), p.sendErr, toolbar, p.menu.errLine)
	p.root = container.NewBorder(widget.NewSeparator(), nil, nil, nil, container.NewPadded(body))
	p.SetModels(nil) // sizes the menu and shows the state
	return p
}

// Content returns the prompt box's canvas object.
func (p *PromptBox) Content() fyne.CanvasObject { return p.root }

// Model returns the name of the selected model, or "" for the backend's
// default.
func (p *PromptBox) Model() string { return p.menu.name() }

// SetModels replaces the model menu. The selected model stays selected,
// without a SwitchModel intent.
func (p *PromptBox) SetModels(models []ModelChoice) {
	p.menu.models = models
	p.menu.setChoices(p.Model())
	p.update()
}

// SetSession sets the session that prompts go to. With ok false there is
// none and the box is disabled; otherwise model (a ModelChoice.Name, or ""
// for the backend's default) is selected without a SwitchModel intent. A
// model missing from the menu is added to it. Text typed for another
// session is kept as its draft. The run state is left alone: call
// SetRunning for the new session.
func (p *PromptBox) SetSession(ref SessionRef, ok bool, model string) {
	if p.hasSession && (!ok || ref != p.ref) {
		p.saveDraft()
		p.sending = false
		p.setSendError("")
	}
	if !ok {
		p.ref, p.hasSession = SessionRef{}, false
		p.entry.SetText("")
		p.update()
		return
	}
	if !p.hasSession || ref != p.ref {
		p.ref, p.hasSession = ref, true
		p.entry.SetText(p.drafts[ref])
		delete(p.drafts, ref)
	}
	p.menu.setChoices(model)
	p.update()
}

// Session returns the session that prompts go to, if any.
func (p *PromptBox) Session() (SessionRef, bool) { return p.ref, p.hasSession }

// SetRunning shows whether the session's agent is running: while it is,
// the Send button is a Stop button and sending is off, but typing is not.
func (p *PromptBox) SetRunning(running bool) {
	p.running = running
	p.update()
}

// SetBackends sets the agent CLIs found. The status line shows the one of
// the selected model's backend; sending to a backend with an Err is off.
func (p *PromptBox) SetBackends(backends []BackendStatus) {
	p.menu.backends = backends
	p.update()
}

// SetStatus shows a one-line status, e.g. "Run finished in 12s", in the
// error colour when isError; "" hides it.
func (p *PromptBox) SetStatus(text string, isError bool) {
	p.SetStatusAction(text, "", nil)
	p.statusErr = isError
	p.update()
}

// SetStatusAction shows a one-line status with a button labelled label
// at its end that calls fn once and clears the status, e.g. "Archived
// S12" with Undo; the next status replaces both.
func (p *PromptBox) SetStatusAction(text, label string, fn func()) {
	p.statusText, p.statusErr, p.statusFn = text, false, fn
	p.statusAct.SetText(label)
	p.statusAct.Hidden = fn == nil
	p.update()
}

// onStatusAction runs the status's action, once.
func (p *PromptBox) onStatusAction() {
	fn := p.statusFn
	p.SetStatus("", false)
	if fn != nil {
		fn()
	}
}

// Focus gives the keyboard focus to the entry, when it is enabled.
func (p *PromptBox) Focus(c fyne.Canvas) {
	if c != nil && !p.entry.Disabled() {
		c.Focus(p.entry)
	}
}

func indexOfModel(choices []ModelChoice, name string) int {
	for i, c := range choices {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// modelLabel is a menu entry: "opus · Claude", or the bare name of a model
// whose backend is unknown.
func modelLabel(c ModelChoice) string {
	switch {
	case c.Backend == "":
		return c.Name
	case c.Title != "":
		return c.Name + " · " + c.Title
	}
	return c.Name + " · " + capitalize(c.Backend)
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// backendText is the status line of b: "claude 2.1.328", or "codex not
// found: set its path in Agent settings".
func backendText(b BackendStatus) string {
	if b.Err != "" {
		return b.Backend + " " + b.Err + ": set its path in Agent settings"
	}
	return strings.TrimSpace(b.Backend + " " + b.Version)
}

// CanSend reports whether Send would send the text typed now.
func (p *PromptBox) CanSend() bool {
	b, _ := p.menu.backendStatus()
	return p.hasSession && !p.running && !p.sending && b.Err == "" && strings.TrimSpace(p.entry.Text) != ""
}

// onSend sends the prompt when it can. The text stays in the entry until
// the agent has started (PromptStarted): a prompt that cannot be sent is
// not lost (SendFailed).
func (p *PromptBox) onSend() {
	if !p.CanSend() {
		return
	}
	req := PromptRequest{Ref: p.ref, Prompt: p.entry.Text, Model: p.Model()}
	p.sending = true
	p.setSendError("")
	p.updateButton()
	p.actions.SendPrompt(req)
}

// PromptStarted tells the box that the agent runs on prompt, sent from
// ref: the entry (or ref's draft) is cleared if it still holds the prompt.
func (p *PromptBox) PromptStarted(ref SessionRef, prompt string) {
	if p.hasSession && p.ref == ref {
		p.sending = false
		p.setSendError("")
		if p.entry.Text == prompt {
			p.entry.SetText("")
		}
		p.update()
		return
	}
	if p.drafts[ref] == prompt {
		delete(p.drafts, ref)
	}
}

// SendFailed tells the box that the prompt sent from ref could not start
// an agent, and why: the text stays, and why is said under the entry until
// the next send, once: the status line above the entry, which told of the
// send, is cleared.
func (p *PromptBox) SendFailed(ref SessionRef, why string) {
	if !p.hasSession || p.ref != ref {
		return
	}
	p.sending = false
	p.setSendError("Not sent: " + why)
	p.SetStatus("", false)
}

// SendError returns what the box says under the entry about the last
// send; "" when nothing.
func (p *PromptBox) SendError() string {
	if p.sendErr.Hidden {
		return ""
	}
	return p.sendErr.Text
}

// Status returns the status line's text.
func (p *PromptBox) Status() string { return p.statusText }

// setSendError shows text under the entry; "" hides it.
func (p *PromptBox) setSendError(text string) {
	if p.sendErr.Text == text {
		return
	}
	p.sendErr.SetText(text)
	p.sendErr.Hidden = text == ""
	p.root.Refresh()
}

// onButton is Send, or Stop while running. The keyboard focus goes back
// to the entry, which the tap took it from.
func (p *PromptBox) onButton() {
	if !p.running {
		p.onSend()
	} else if p.hasSession {
		p.actions.StopRun(p.ref)
	}
	p.Focus(fyne.CurrentApp().Driver().CanvasForObject(p.entry))
}

func (p *PromptBox) onTextChanged(string) {
	p.rows.update()
	p.updateButton()
}

func (p *PromptBox) onModelChanged(string) {
	if !p.menu.quiet && p.hasSession {
		p.actions.SwitchModel(p.ref, p.Model())
	}
	p.update()
}

// SetIdleNote sets what the disabled box says when it has no session to
// send to ("" for the default: select or create one), e.g. why a session
// shown takes no prompts.
func (p *PromptBox) SetIdleNote(note string) {
	p.idleNote = note
	p.update()
}

// IdleNote returns what the box says with no session to send to.
func (p *PromptBox) IdleNote() string { return cmpOr(p.idleNote, noSessionPlaceHolder) }

// saveDraft keeps the entry's text as the draft of the current session.
func (p *PromptBox) saveDraft() {
	if strings.TrimSpace(p.entry.Text) == "" {
		delete(p.drafts, p.ref)
		return
	}
	p.drafts[p.ref] = p.entry.Text
}

// update shows the state in the widgets.
func (p *PromptBox) update() {
	if p.hasSession {
		p.entry.Enable()
		p.menu.model.Enable()
		setPlaceHolder(&p.entry.Entry, promptPlaceHolder)
	} else {
		p.entry.Disable()
		p.menu.model.Disable()
		setPlaceHolder(&p.entry.Entry, cmpOr(p.idleNote, noSessionPlaceHolder))
	}
	p.updateButton()
	p.menu.updateBackend()
	p.updateStatus()
}

func (p *PromptBox) updateButton() {
	b := p.button
	if p.running {
		setButton(b, "Stop", theme.MediaStopIcon(), widget.DangerImportance)
		setEnabled(b, p.hasSession)
	} else {
		setButton(b, "Send", theme.MailSendIcon(), widget.HighImportance)
		setEnabled(b, p.CanSend())
	}
}

// setButton gives b its text, icon and importance, refreshing it only when
// one of them changes: a button's refresh renders its icon's SVG again.
func setButton(b *widget.Button, text string, icon fyne.Resource, imp widget.Importance) {
	if b.Text == text && b.Importance == imp && sameResource(b.Icon, icon) {
		return
	}
	b.Text, b.Icon, b.Importance = text, icon, imp
	b.Refresh()
}

// sameResource reports whether two resources are the same icon.
func sameResource(a, b fyne.Resource) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || a.Name() == b.Name()
}

// setPlaceHolder sets an entry's place holder, refreshing it only when it
// changes.
func setPlaceHolder(e *widget.Entry, text string) {
	if e.PlaceHolder != text {
		e.SetPlaceHolder(text)
	}
}

func setEnabled(w fyne.Disableable, enabled bool) {
	if enabled {
		w.Enable()
	} else {
		w.Disable()
	}
}

func (p *PromptBox) updateStatus() {
	if p.running {
		backend := "agent"
		if c, ok := p.menu.selected(); ok && c.Backend != "" {
			backend = c.Backend
		}
		p.runLabel.SetText("Running " + backend + "…")
		p.runBox.Show()
		p.activity.Start()
	} else {
		p.activity.Stop()
		p.runBox.Hide() // hidden, the Border leaves no gap for it
	}
	name := theme.ColorNamePlaceHolder
	if p.statusErr {
		name = theme.ColorNameError
	}
	setStatusText(p.status, p.statusText, name)
	p.statusRow.Hidden = !p.running && p.statusText == ""
	p.statusRow.Refresh()
	p.root.Refresh()
}

// newStatusText returns a one-line RichText for setStatusText.
func newStatusText() *widget.RichText {
	return widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyleInline})
}

// setStatusText shows text in the theme colour name.
func setStatusText(rt *widget.RichText, text string, name fyne.ThemeColorName) {
	seg := rt.Segments[0].(*widget.TextSegment)
	if seg.Text == text && seg.Style.ColorName == name {
		return
	}
	seg.Text = text
	seg.Style.ColorName = name
	rt.Refresh()
}
