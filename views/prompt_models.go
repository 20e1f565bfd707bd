package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// modelMenu is the prompt box's model menu and, beside it, the status of
// the selected model's agent CLI (its version, or why it cannot run).
type modelMenu struct {
	choices  []ModelChoice // the model menu, in Options order
	models   []ModelChoice // as given to PromptBox.SetModels
	backends []BackendStatus
	quiet    bool // a programmatic model change: no intent

	model      *widget.Select
	modelWidth *minWidthLayout
	backend    *widget.RichText
	backendTip *hoverTip
	// errLine says why the selected model's CLI cannot run, under the
	// toolbar, wrapped and selectable: in the toolbar beside the menu and
	// Send it was cut at 800 px ("codex not found: se…").
	errLine *widget.Label
}

// newModelMenu returns an empty menu that calls onChanged when the
// selection changes.
func newModelMenu(onChanged func(string)) *modelMenu {
	m := &modelMenu{}
	m.model = widget.NewSelect(nil, onChanged)
	m.model.PlaceHolder = defaultModelLabel
	m.modelWidth = &minWidthLayout{}
	m.backend = newStatusText()
	m.backendTip = newHoverTip(m.backend, m.backendDetail)
	m.backend.Truncation = fyne.TextTruncateEllipsis
	m.errLine = widget.NewLabel("")
	m.errLine.Wrapping = fyne.TextWrapWord
	m.errLine.Selectable = true
	m.errLine.Importance = widget.DangerImportance
	m.errLine.Hide()
	return m
}

// name returns the name of the selected model, or "" for the backend's
// default.
func (m *modelMenu) name() string {
	c, _ := m.selected()
	return c.Name
}

// setChoices rebuilds the model menu from m.models and selects the model
// named model, quietly. An unknown model gets its own entry.
func (m *modelMenu) setChoices(model string) {
	m.choices = append(m.choices[:0:0], m.models...)
	if model != "" && indexOfModel(m.choices, model) < 0 {
		m.choices = append(m.choices, ModelChoice{Name: model})
	}
	options := make([]string, len(m.choices))
	width := fyne.MeasureText(defaultModelLabel, theme.TextSize(), fyne.TextStyle{}).Width
	for i, c := range m.choices {
		options[i] = modelLabel(c)
		width = max(width, fyne.MeasureText(options[i], theme.TextSize(), fyne.TextStyle{}).Width)
	}
	// Select sizes itself to its placeholder: make room for the longest
	// option, plus the Select's own padding and drop-down icon.
	pad := theme.Size(theme.SizeNameInnerPadding)
	m.modelWidth.width = width + 4*pad + theme.Size(theme.SizeNameInlineIcon)

	m.quiet = true
	defer func() { m.quiet = false }()
	m.model.Options = options
	if i := indexOfModel(m.choices, model); i >= 0 {
		m.model.SetSelectedIndex(i)
	} else {
		m.model.ClearSelected()
	}
	m.model.Refresh()
}

// selected returns the model chosen in the menu, if any.
func (m *modelMenu) selected() (ModelChoice, bool) {
	i := m.model.SelectedIndex()
	if i < 0 || i >= len(m.choices) {
		return ModelChoice{}, false
	}
	return m.choices[i], true
}

// backendStatus returns the status of the selected model's backend, when
// both are known.
func (m *modelMenu) backendStatus() (BackendStatus, bool) {
	c, ok := m.selected()
	if !ok || c.Backend == "" {
		return BackendStatus{}, false
	}
	for _, b := range m.backends {
		if b.Backend == c.Backend {
			return b, true
		}
	}
	return BackendStatus{}, false
}

// backendDetail is the hover text of the status line: it adds the path.
func (m *modelMenu) backendDetail() string {
	b, ok := m.backendStatus()
	if !ok || b.Path == "" {
		return ""
	}
	return backendText(b) + "\n" + b.Path
}

// updateBackend shows the status of the selected model's backend.
func (m *modelMenu) updateBackend() {
	b, ok := m.backendStatus()
	errText := ""
	switch {
	case !ok:
		setStatusText(m.backend, "", theme.ColorNamePlaceHolder)
	case b.Err != "":
		setStatusText(m.backend, "", theme.ColorNameError)
		errText = backendText(b)
	default:
		setStatusText(m.backend, backendText(b), theme.ColorNamePlaceHolder)
	}
	if m.errLine.Text != errText {
		m.errLine.SetText(errText)
	}
	m.errLine.Hidden = errText == ""
}

// backendError returns why the selected model's CLI cannot run, as the
// box says it; "" when it can.
func (m *modelMenu) backendError() string {
	if m.errLine.Hidden {
		return ""
	}
	return m.errLine.Text
}
