package views

import (
	"errors"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// SavePolicySettings are a project's save policy as its dialog edits them:
// when a running agent's events are written to the store.
type SavePolicySettings struct {
	Policy     string // "chunk" (the default), "step" or "turn"
	BufferMS   int    // chunk: the longest wait before a write; 0 means 250 ms
	BufferSize int    // chunk: waiting events written at once; 0 means no limit
}

// savePolicyChoices are the policies the dialog offers, in its order,
// with what each costs and loses.
var savePolicyChoices = []struct{ name, label string }{
	{"chunk", "Chunk: what arrived, every few hundred ms (default); a crash loses the last moments"},
	{"step", "Step: at each tool result and reply; a crash loses the step in flight"},
	{"turn", "Turn: once, at the end of the turn; a crash loses the whole turn"},
}

// savePolicyHelp says what the settings are about.
const savePolicyHelp = "When a running agent's work is written to the session store.\n" +
	"Fewer writes cost less; a crash of Lazuli loses what was not written yet.\n" +
	"Once a turn has ended the session is the same whatever the policy."

// errNotCount reports a buffer field that is not a whole number ≥ 0.
var errNotCount = errors.New("enter a whole number, 0 or more (empty means the default)")

// ShowSavePolicy shows a dialog over w to edit cur, the save policy of
// the project: the policy and, for chunk, its buffer in milliseconds and
// in events. Save calls save with the settings entered; Cancel calls
// nothing.
func ShowSavePolicy(w fyne.Window, cur SavePolicySettings, save func(SavePolicySettings)) {
	f := newSavePolicyForm(cur)
	help := newStatusText()
	setStatusText(help, savePolicyHelp, theme.ColorNamePlaceHolder)
	items := []*widget.FormItem{
		widget.NewFormItem("", help),
		widget.NewFormItem("Save", f.policy),
		widget.NewFormItem("Buffer (ms)", f.bufferMS),
		widget.NewFormItem("Buffer (events)", f.bufferSize),
	}
	d := dialog.NewForm("Save policy (this project)", "Save", "Cancel", items, func(ok bool) {
		if ok {
			save(f.value())
		}
	}, w)
	d.Resize(fyne.NewSize(settingsWidth, d.MinSize().Height))
	d.Show()
}

// savePolicyForm holds the dialog's fields.
type savePolicyForm struct {
	policy               *widget.RadioGroup
	bufferMS, bufferSize *widget.Entry
}

// newSavePolicyForm returns the fields set to cur.
func newSavePolicyForm(cur SavePolicySettings) *savePolicyForm {
	labels := make([]string, len(savePolicyChoices))
	for i, c := range savePolicyChoices {
		labels[i] = c.label
	}
	f := &savePolicyForm{bufferMS: countEntry(cur.BufferMS, "250"), bufferSize: countEntry(cur.BufferSize, "no limit")}
	f.policy = widget.NewRadioGroup(labels, func(string) { f.onPolicyChanged() })
	f.policy.Required = true
	f.policy.SetSelected(labels[savePolicyIndex(cur.Policy)])
	return f
}

// countEntry is an entry for a count ≥ 0 showing n ("" for 0).
func countEntry(n int, placeholder string) *widget.Entry {
	e := widget.NewEntry()
	if n > 0 {
		e.SetText(strconv.Itoa(n))
	}
	e.SetPlaceHolder(placeholder)
	e.AlwaysShowValidationError = true // Save stays disabled while one is wrong, focused or not
	e.Validator = func(s string) error {
		if _, ok := parseCount(s); !ok {
			return errNotCount
		}
		return nil
	}
	return e
}

// parseCount reads a count ≥ 0; "" is 0.
func parseCount(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// savePolicyIndex is the choice named name; an unknown name is chunk's.
func savePolicyIndex(name string) int {
	for i, c := range savePolicyChoices {
		if c.name == name {
			return i
		}
	}
	return 0
}

// onPolicyChanged enables the buffer fields for chunk only: they tune it.
func (f *savePolicyForm) onPolicyChanged() {
	for _, e := range []*widget.Entry{f.bufferMS, f.bufferSize} {
		if f.value().Policy == "chunk" {
			e.Enable()
		} else {
			e.Disable()
		}
	}
}

// value returns the settings entered; buffers only for chunk.
func (f *savePolicyForm) value() SavePolicySettings {
	s := SavePolicySettings{Policy: savePolicyChoices[0].name}
	for _, c := range savePolicyChoices {
		if c.label == f.policy.Selected {
			s.Policy = c.name
		}
	}
	if s.Policy == "chunk" {
		s.BufferMS, _ = parseCount(f.bufferMS.Text)
		s.BufferSize, _ = parseCount(f.bufferSize.Text)
	}
	return s
}
