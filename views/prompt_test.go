package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

var (
	promptRef    = SessionRef{StorePath: "/p/a.azs", ID: 3}
	sampleModels = []ModelChoice{
		{Name: "opus", Backend: "claude"},
		{Name: "sonnet", Backend: "claude"},
		{Name: "gpt-5.5", Backend: "codex"},
	}
	backendsOK = []BackendStatus{
		{Backend: "claude", Path: "/usr/bin/claude", Version: "2.1.328"},
		{Backend: "codex", Path: "/usr/bin/codex", Version: "0.98.0"},
	}
	codexMissing = []BackendStatus{
		{Backend: "claude", Path: "/usr/bin/claude", Version: "2.1.328"},
		{Backend: "codex", Err: "not found"},
	}
)

// newTestPrompt shows a prompt box for promptRef with model opus in a
// 700×220 window.
func newTestPrompt(t *testing.T) (*PromptBox, *fakeActions, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	a := &fakeActions{}
	p := NewPromptBox(a)
	w := test.NewTempWindow(t, p.Content())
	w.Resize(fyne.NewSize(700, 220))
	p.SetModels(sampleModels)
	p.SetBackends(backendsOK)
	p.SetSession(promptRef, true, "opus")
	return p, a, w
}

// ctrlEnter presses Ctrl+Enter on the focused object, as the desktop
// driver does: a focused Shortcutable gets the shortcut, not the canvas.
func ctrlEnter(t *testing.T, c fyne.Canvas) {
	t.Helper()
	f, ok := c.Focused().(fyne.Shortcutable)
	if !ok {
		t.Fatalf("focused object %T takes no shortcuts", c.Focused())
	}
	f.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl})
}

// typePrompt focuses the entry and types text; '\n' is the Return key.
func typePrompt(c fyne.Canvas, p *PromptBox, text string) {
	c.Focus(p.entry)
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			p.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		}
		test.Type(p.entry, line)
	}
}

func TestPromptSendCtrlEnter(t *testing.T) {
	p, a, w := newTestPrompt(t)
	typePrompt(w.Canvas(), p, "Fix the bug\nand add a test")
	if len(a.calls) != 0 || p.entry.Text != "Fix the bug\nand add a test" {
		t.Fatalf("plain Return: entry %q, intents %q; want a newline and no intent", p.entry.Text, a)
	}
	ctrlEnter(t, w.Canvas())
	if got, want := a.String(), `send /p/a.azs#3 "Fix the bug\nand add a test" model="opus"`; got != want {
		t.Errorf("Ctrl+Enter: intents = %q, want %q", got, want)
	}
	if p.entry.Text != "Fix the bug\nand add a test" || p.CanSend() {
		t.Errorf("before the agent started: entry %q, can send %v; want the text kept, sending off", p.entry.Text, p.CanSend())
	}
	p.PromptStarted(SessionRef{StorePath: "/p/a.azs", ID: 3}, "Fix the bug\nand add a test")
	if p.entry.Text != "" {
		t.Errorf("entry holds %q once the agent started, want it cleared", p.entry.Text)
	}
}

// TestPromptSendFailedKeepsText: a prompt whose agent could not start
// stays in the box, and why is said under it until the next send.
func TestPromptSendFailedKeepsText(t *testing.T) {
	p, a, w := newTestPrompt(t)
	ref := SessionRef{StorePath: "/p/a.azs", ID: 3}
	typePrompt(w.Canvas(), p, "Refactor the parser")
	ctrlEnter(t, w.Canvas())
	p.SendFailed(ref, "claude not found: /usr/bin/claude (install it, or set its path in Agent settings)")
	if p.entry.Text != "Refactor the parser" || !p.CanSend() {
		t.Errorf("after a failed send: entry %q, can send %v; want the text kept and sendable", p.entry.Text, p.CanSend())
	}
	if !p.sendErr.Visible() || !strings.Contains(p.sendErr.Text, "Not sent: claude not found") {
		t.Errorf("in-place reason %q (visible %v)", p.sendErr.Text, p.sendErr.Visible())
	}
	ctrlEnter(t, w.Canvas())
	if len(a.calls) != 2 || p.sendErr.Visible() {
		t.Errorf("second send: intents %q, reason still shown %v", a, p.sendErr.Visible())
	}
	p.PromptStarted(ref, "Refactor the parser")
	if p.entry.Text != "" || p.sendErr.Visible() {
		t.Errorf("started: entry %q, reason shown %v", p.entry.Text, p.sendErr.Visible())
	}
}

func TestPromptSendButton(t *testing.T) {
	p, a, w := newTestPrompt(t)
	if !p.button.Disabled() {
		t.Error("Send is enabled with an empty entry")
	}
	typePrompt(w.Canvas(), p, "  hello ")
	if p.button.Disabled() || p.button.Text != "Send" || p.button.Icon != theme.MailSendIcon() {
		t.Errorf("button %q (disabled %v), want an enabled Send with the send icon", p.button.Text, p.button.Disabled())
	}
	test.Tap(p.button)
	if got, want := a.String(), `send /p/a.azs#3 "  hello " model="opus"`; got != want {
		t.Errorf("intents = %q, want %q", got, want)
	}
	if p.entry.Text != "  hello " || !p.button.Disabled() {
		t.Errorf("after sending: entry %q, Send disabled %v", p.entry.Text, p.button.Disabled())
	}
}

// TestPromptSendFailedSaysWhyOnce: the window showed a failed send's
// reason twice, in the status line above the entry and under it. It is
// shown once, under the entry, whatever the status line said of the send.
func TestPromptSendFailedSaysWhyOnce(t *testing.T) {
	p, _, w := newTestPrompt(t)
	why := "claude not found"
	typePrompt(w.Canvas(), p, "Refactor the parser")
	ctrlEnter(t, w.Canvas())
	p.SetStatus("Not sent: "+why+".", true)
	p.SendFailed(promptRef, why)
	var holding []*canvas.Text
	for _, x := range collectObjects[*canvas.Text](w.Content(), true) {
		if strings.Contains(x.Text, why) {
			holding = append(holding, x)
		}
	}
	if len(holding) != 1 {
		t.Fatalf("%d visible texts hold the reason, want 1", len(holding))
	}
	entryY := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.entry).Y
	if y := fyne.CurrentApp().Driver().AbsolutePositionForObject(holding[0]).Y; y <= entryY {
		t.Errorf("the reason is at y %v, above the entry (y %v): want it under the entry", y, entryY)
	}
	if p.Status() != "" || p.statusRow.Visible() {
		t.Errorf("status line %q (shown %v) after the failed send", p.Status(), p.statusRow.Visible())
	}
}

func TestPromptBlankNotSent(t *testing.T) {
	p, a, w := newTestPrompt(t)
	typePrompt(w.Canvas(), p, "  \n\t ")
	ctrlEnter(t, w.Canvas())
	test.Tap(p.button)
	if len(a.calls) != 0 || !p.button.Disabled() {
		t.Errorf("blank prompt: intents %q, Send disabled %v", a, p.button.Disabled())
	}
	if p.entry.Text != "  \n\t " {
		t.Errorf("entry = %q, want the blank text kept", p.entry.Text)
	}
}

func TestPromptWithoutSession(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	p := NewPromptBox(a)
	w := test.NewTempWindow(t, p.Content())
	check := func(when string) {
		t.Helper()
		if !p.entry.Disabled() || !p.button.Disabled() || !p.menu.model.Disabled() {
			t.Errorf("%s: entry, Send, model disabled = %v %v %v, want all", when,
				p.entry.Disabled(), p.button.Disabled(), p.menu.model.Disabled())
		}
		if p.entry.PlaceHolder != noSessionPlaceHolder {
			t.Errorf("%s: placeholder %q", when, p.entry.PlaceHolder)
		}
	}
	check("new box")

	p.SetModels(sampleModels)
	p.SetSession(promptRef, true, "opus")
	if p.entry.Disabled() || p.entry.PlaceHolder != promptPlaceHolder {
		t.Errorf("with a session: entry disabled %v, placeholder %q", p.entry.Disabled(), p.entry.PlaceHolder)
	}
	typePrompt(w.Canvas(), p, "draft for S3")
	p.SetSession(SessionRef{}, false, "")
	check("after SetSession(false)")
	if p.entry.Text != "" {
		t.Errorf("disabled entry shows %q", p.entry.Text)
	}
	test.Tap(p.button)
	if len(a.calls) != 0 {
		t.Errorf("intents %q without a session", a)
	}
	p.SetSession(promptRef, true, "opus")
	if p.entry.Text != "draft for S3" {
		t.Errorf("back on S3 the entry shows %q, want its draft", p.entry.Text)
	}
}

func TestPromptStopWhileRunning(t *testing.T) {
	p, a, w := newTestPrompt(t)
	p.SetRunning(true)
	if p.button.Text != "Stop" || p.button.Disabled() || p.button.Icon != theme.MediaStopIcon() {
		t.Errorf("running: button %q (disabled %v), want an enabled Stop", p.button.Text, p.button.Disabled())
	}
	if !p.runBox.Visible() || p.runLabel.Text != "Running claude…" || !p.statusRow.Visible() {
		t.Errorf("running: activity shown %v, label %q", p.runBox.Visible(), p.runLabel.Text)
	}
	typePrompt(w.Canvas(), p, "next step")
	if p.entry.Text != "next step" {
		t.Errorf("typing while running gave %q", p.entry.Text)
	}
	ctrlEnter(t, w.Canvas())
	if len(a.calls) != 0 || p.CanSend() {
		t.Fatalf("Ctrl+Enter while running sent %q", a)
	}
	test.Tap(p.button)
	if got, want := a.String(), "stop /p/a.azs#3"; got != want {
		t.Errorf("Stop: intents = %q, want %q", got, want)
	}
	p.SetRunning(false)
	if p.button.Text != "Send" || p.button.Disabled() || p.runBox.Visible() || p.statusRow.Visible() {
		t.Errorf("after the run: button %q (disabled %v), activity shown %v", p.button.Text, p.button.Disabled(), p.runBox.Visible())
	}
	ctrlEnter(t, w.Canvas())
	if got, want := a.String(), `stop /p/a.azs#3; send /p/a.azs#3 "next step" model="opus"`; got != want {
		t.Errorf("intents = %q, want %q", got, want)
	}
}

func TestPromptModelChoice(t *testing.T) {
	p, a, _ := newTestPrompt(t)
	if got, want := strings.Join(p.menu.model.Options, ", "), "opus · Claude, sonnet · Claude, gpt-5.5 · Codex"; got != want {
		t.Errorf("options = %q, want %q", got, want)
	}
	if p.menu.model.Selected != "opus · Claude" || p.Model() != "opus" {
		t.Errorf("selected %q (%q), want opus", p.menu.model.Selected, p.Model())
	}
	p.SetModels(sampleModels[1:])
	if p.menu.model.Selected != "opus" || p.Model() != "opus" {
		t.Errorf("opus left the menu: selected %q, want it kept as an entry of its own", p.menu.model.Selected)
	}
	p.SetModels(sampleModels)
	p.SetSession(promptRef, true, "gpt-5.5")
	if len(a.calls) != 0 {
		t.Fatalf("programmatic changes sent %q", a)
	}
	p.menu.model.SetSelected("sonnet · Claude") // what the menu does on a click
	if got, want := a.String(), `model /p/a.azs#3 "sonnet"`; got != want {
		t.Errorf("user choice: intents = %q, want %q", got, want)
	}
	p.SetSession(SessionRef{StorePath: "/p/a.azs", ID: 4}, true, "claude-sonnet-4-5")
	if p.menu.model.Selected != "claude-sonnet-4-5" || p.Model() != "claude-sonnet-4-5" || len(a.calls) != 1 {
		t.Errorf("unknown model: selected %q, intents %q", p.menu.model.Selected, a)
	}
	p.SetSession(promptRef, true, "")
	if p.menu.model.Selected != "" || p.Model() != "" || len(a.calls) != 1 {
		t.Errorf("default model: selected %q, intents %q", p.menu.model.Selected, a)
	}
	typePrompt(fyne.CurrentApp().Driver().CanvasForObject(p.entry), p, "hi")
	test.Tap(p.button)
	if got := a.calls[len(a.calls)-1]; got != `send /p/a.azs#3 "hi" model=""` {
		t.Errorf("send with the default model = %q", got)
	}
}

func TestPromptModelMenuFitsLabels(t *testing.T) {
	p, _, _ := newTestPrompt(t)
	label := objectsOf[*widget.RichText](p.menu.model)[0]
	if got, need := p.menu.model.Size().Width, label.MinSize().Width; got < need {
		t.Errorf("model menu is %v wide, its label needs %v", got, need)
	}
}

func TestPromptBackendStatus(t *testing.T) {
	p, a, w := newTestPrompt(t)
	if got := p.menu.backend.String(); got != "claude 2.1.328" {
		t.Errorf("claude status = %q", got)
	}
	if got := p.menu.backendDetail(); got != "claude 2.1.328\n/usr/bin/claude" {
		t.Errorf("hover = %q", got)
	}
	p.SetBackends(codexMissing)
	p.SetSession(promptRef, true, "gpt-5.5")
	if want := "codex not found: set its path in Agent settings"; p.menu.backendError() != want || p.menu.backend.String() != "" {
		t.Errorf("codex error = %q (toolbar %q), want %q under the toolbar", p.menu.backendError(), p.menu.backend.String(), want)
	}
	typePrompt(w.Canvas(), p, "hello")
	ctrlEnter(t, w.Canvas())
	test.Tap(p.button)
	if len(a.calls) != 0 || !p.button.Disabled() {
		t.Fatalf("backend error: intents %q, Send disabled %v", a, p.button.Disabled())
	}
	p.menu.model.SetSelected("opus · Claude")
	w.Canvas().Focus(p.entry) // the tap on the disabled button took the focus
	if p.button.Disabled() || p.menu.backend.String() != "claude 2.1.328" || p.menu.backendError() != "" {
		t.Errorf("back on claude: Send disabled %v, status %q", p.button.Disabled(), p.menu.backend.String())
	}
	ctrlEnter(t, w.Canvas())
	if got, want := a.String(), `model /p/a.azs#3 "opus"; send /p/a.azs#3 "hello" model="opus"`; got != want {
		t.Errorf("intents = %q, want %q", got, want)
	}
}

func TestPromptStatus(t *testing.T) {
	p, _, _ := newTestPrompt(t)
	if p.statusRow.Visible() {
		t.Error("empty status line shown")
	}
	p.SetStatus("Agent failed: exit status 1", true)
	seg := p.status.Segments[0].(*widget.TextSegment)
	if !p.statusRow.Visible() || seg.Text != "Agent failed: exit status 1" || seg.Style.ColorName != theme.ColorNameError {
		t.Errorf("error status: shown %v, %q in %q", p.statusRow.Visible(), seg.Text, seg.Style.ColorName)
	}
	p.SetStatus("Run finished in 12s", false)
	if seg.Text != "Run finished in 12s" || seg.Style.ColorName != theme.ColorNamePlaceHolder {
		t.Errorf("status %q in %q", seg.Text, seg.Style.ColorName)
	}
	p.SetStatus("", false)
	if p.statusRow.Visible() {
		t.Error("status line shown after SetStatus(\"\")")
	}
}

func TestPromptRowsGrow(t *testing.T) {
	p, _, w := newTestPrompt(t)
	rows := func() int { return p.rows.rows }
	if rows() != minPromptRows {
		t.Errorf("empty entry shows %d rows, want %d", rows(), minPromptRows)
	}
	small := p.entry.MinSize().Height
	typePrompt(w.Canvas(), p, "one\ntwo\nthree\nfour")
	if rows() != 4 || p.entry.MinSize().Height <= small {
		t.Errorf("4 lines: %d rows, height %v (was %v)", rows(), p.entry.MinSize().Height, small)
	}
	typePrompt(w.Canvas(), p, "\nfive\nsix\nseven\neight")
	if rows() != maxPromptRows {
		t.Errorf("8 lines: %d rows, want %d", rows(), maxPromptRows)
	}
	p.entry.SetText(strings.Repeat("word ", 60)) // about 3 wrapped lines at 700
	if rows() < 3 || rows() > 4 {
		t.Errorf("a long line shows %d rows, want it wrapped to 3 or 4", rows())
	}
	w.Resize(fyne.NewSize(1400, 220))
	if rows() != minPromptRows {
		t.Errorf("after widening: %d rows, want %d", rows(), minPromptRows)
	}
}

func TestPromptFocus(t *testing.T) {
	p, _, w := newTestPrompt(t)
	p.Focus(w.Canvas())
	if w.Canvas().Focused() != p.entry {
		t.Errorf("focused %T, want the entry", w.Canvas().Focused())
	}
	w.Canvas().Unfocus()
	p.SetSession(SessionRef{}, false, "")
	p.Focus(w.Canvas())
	if w.Canvas().Focused() != nil {
		t.Error("Focus focused the disabled entry")
	}
}

func TestPromptMarkup(t *testing.T) {
	p, _, w := newTestPrompt(t)
	p.entry.SetText("Add a --json flag to the list command")
	p.SetRunning(true)
	p.SetStatus("Compacting S3…", false)
	test.AssertRendersToMarkup(t, "prompt.xml", w.Canvas())
}

// TestPromptBackendErrorWhole: at 800 px the reason a CLI cannot run is
// readable whole (wrapped, selectable), not cut after a few words beside
// the model menu.
func TestPromptBackendErrorWhole(t *testing.T) {
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(800, 600))
	p := m.PromptBox()
	p.SetModels(sampleModels)
	p.SetBackends([]BackendStatus{{Backend: "codex", Err: "not found at /home/someone/.local/share/pnpm/global/5/node_modules/.bin/codex"}})
	p.SetSession(promptRef, true, "gpt-5.5")
	w.Canvas().Refresh(m.Content())
	want := "codex not found at /home/someone/.local/share/pnpm/global/5/node_modules/.bin/codex: set its path in Agent settings"
	var shown *widget.Label
	for _, l := range objectsOf[*widget.Label](p.Content()) {
		if l.Text == want && l.Visible() {
			shown = l
		}
	}
	if shown == nil {
		t.Fatalf("no label shows %q whole; the toolbar says %q", want, p.menu.backend.String())
	}
	if !shown.Selectable || shown.Wrapping != fyne.TextWrapWord {
		t.Errorf("the error is not selectable (%v) or not wrapped (%v)", shown.Selectable, shown.Wrapping)
	}
	d := fyne.CurrentApp().Driver()
	box := d.AbsolutePositionForObject(p.Content()).X + p.Content().Size().Width
	if end := d.AbsolutePositionForObject(shown).X + shown.Size().Width; end > box+0.5 {
		t.Errorf("the error ends at x=%v, past the prompt box (%v)", end, box)
	}
	if shown.Size().Height < shown.MinSize().Height {
		t.Errorf("the error is %v high, its lines need %v", shown.Size().Height, shown.MinSize().Height)
	}
}

func TestModelLabel(t *testing.T) {
	tests := []struct {
		c    ModelChoice
		want string
	}{
		{ModelChoice{Name: "opus", Backend: "claude"}, "opus · Claude"},
		{ModelChoice{Name: "copilot-default", Backend: "copilot", Title: "Copilot CLI"}, "copilot-default · Copilot CLI"},
		{ModelChoice{Name: "local"}, "local"},
	}
	for _, tt := range tests {
		if got := modelLabel(tt.c); got != tt.want {
			t.Errorf("modelLabel(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}
