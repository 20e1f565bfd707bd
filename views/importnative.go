package views

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
)

// NativeRow is one native session (Claude Code's or Codex's own history)
// in the Import native history dialog.
type NativeRow struct {
	Key         string // what ImportNative gets back
	Agent       string // "claude" or "codex"
	Project     string // the folder the agent ran in; "" when unknown
	Started     time.Time
	Size        int64  // bytes, with the sub-agents' transcripts
	FirstPrompt string // one line
	Subagents   int
	// State is "new", "new lines", "imported", "changed", "unreadable" or
	// "own run" (a turn AZUREAL or Lazuli ran, already in a store).
	State     string
	InProject bool // ran in the window's project
}

// importable reports whether the row has something to import by default.
func (r NativeRow) importable() bool { return r.State == "new" || r.State == "new lines" }

// Sizes of the dialog.
const (
	nativeDialogWidth  = 920
	nativeDialogHeight = 600
)

// NativeImportDialog lists native sessions with a check box each, imports
// the checked ones through NativeImportActions, and shows the import's
// progress and result. Its methods must run on the Fyne goroutine.
type NativeImportDialog struct {
	actions NativeImportActions
	rows    []NativeRow // as scanned
	shown   []int       // indexes in rows of the listed rows
	checked map[string]bool
	state   nativeDialogState

	status     *widget.Label
	showAll    *widget.Check
	list       *widget.List
	selectAll  *widget.Button
	selectNone *widget.Button
	progress   *widget.ProgressBar
	importBtn  *widget.Button
	cancelBtn  *widget.Button
	closeBtn   *widget.Button
	content    *fyne.Container // all but the buttons; laid out again when the status grows
	dialog     *dialog.CustomDialog
}

// nativeDialogState is what the dialog is doing.
type nativeDialogState int

const (
	nativeScanning nativeDialogState = iota
	nativeChoosing
	nativeImporting
	nativeDone
)

// ShowNativeImport opens the dialog over w, saying that the history is
// being scanned until SetRows or SetScanError.
func ShowNativeImport(w fyne.Window, a NativeImportActions) *NativeImportDialog {
	d := &NativeImportDialog{actions: a, checked: map[string]bool{}}
	d.status = widget.NewLabel("")
	d.status.Wrapping = fyne.TextWrapWord
	d.showAll = widget.NewCheck("Show all projects", func(bool) { d.filter() })
	d.selectAll = widget.NewButton("Select all", func() { d.setAll(true) })
	d.selectNone = widget.NewButton("Select none", func() { d.setAll(false) })
	d.list = &widget.List{Length: d.length, CreateItem: d.createItem, UpdateItem: d.updateItem}
	d.list.ExtendBaseWidget(d.list)
	d.progress = widget.NewProgressBar()
	d.progress.Hide()
	d.importBtn = widget.NewButtonWithIcon("Import", theme.DownloadIcon(), d.onImport)
	d.importBtn.Importance = widget.HighImportance
	d.cancelBtn = widget.NewButton("Cancel import", d.onCancel)
	d.cancelBtn.Hide()
	d.closeBtn = widget.NewButton("Close", func() { d.dialog.Hide() })
	top := container.NewVBox(d.status, container.NewHBox(d.showAll, d.selectAll, d.selectNone))
	d.content = container.NewBorder(top, d.progress, nil, nil, d.list)
	d.dialog = dialog.NewCustomWithoutButtons("Import native history", d.content, w)
	d.dialog.SetButtons([]fyne.CanvasObject{d.closeBtn, d.cancelBtn, d.importBtn})
	d.dialog.Resize(fyne.NewSize(nativeDialogWidth, nativeDialogHeight))
	d.setStatus("Looking for your agents' history…")
	d.update()
	d.dialog.Show()
	return d
}

// setStatus shows text above the list and lays the dialog out again: a
// label that wraps to more lines does not move what is below it by
// itself, it was drawn over the check box row and the list.
func (d *NativeImportDialog) setStatus(text string) {
	before := d.status.MinSize().Height
	d.status.SetText(text)
	if d.content != nil && d.status.MinSize().Height != before {
		d.content.Refresh()
	}
}

// SetRows shows the sessions found, checking those of the project with
// something new; notes (missing folders, unreadable files) go above them.
func (d *NativeImportDialog) SetRows(rows []NativeRow, notes []string) {
	d.rows, d.state = rows, nativeChoosing
	d.checked = map[string]bool{}
	inProject := 0
	for _, r := range rows {
		if r.InProject {
			inProject++
			d.checked[r.Key] = r.importable()
		}
	}
	msg := display.Plural(len(rows), "native session") + " found, " + display.Count(inProject) + " in this project. Checked: this project's sessions with something new."
	for _, r := range rows {
		if r.State == "changed" {
			msg += "\nA changed session (rewritten since its import) that you check is imported again as a new session."
			break
		}
	}
	if len(rows) == 0 {
		msg = "No native sessions found."
	}
	if len(notes) > 0 {
		msg += "\n" + strings.Join(notes, "\n")
	}
	d.setStatus(msg)
	d.showAll.SetChecked(inProject == 0 && len(rows) > 0) // filters too
	d.filter()
}

// SetScanError says why the history could not be scanned.
func (d *NativeImportDialog) SetScanError(msg string) {
	d.state = nativeDone
	d.setStatus(msg)
	d.update()
}

// SetProgress shows how far the import is.
func (d *NativeImportDialog) SetProgress(files, totalFiles int, bytes, totalBytes int64) {
	if d.state != nativeImporting {
		return
	}
	if totalBytes > 0 {
		d.progress.SetValue(min(1, float64(bytes)/float64(totalBytes)))
	}
	d.setStatus(fmt.Sprintf("Importing… %d of %d transcript files, %s of %s.", files, totalFiles, display.Bytes(bytes), display.Bytes(totalBytes)))
}

// Finish shows the import's result.
func (d *NativeImportDialog) Finish(summary string) {
	d.state = nativeDone
	d.progress.SetValue(1)
	d.setStatus(summary)
	d.update()
}

// SetStates updates the state of the rows named in states (by key), as
// they are after an import.
func (d *NativeImportDialog) SetStates(states map[string]string) {
	for i := range d.rows {
		if st, ok := states[d.rows[i].Key]; ok {
			d.rows[i].State = st
		}
	}
	d.list.Refresh()
}

// filter lists the project's rows, or all with Show all projects.
func (d *NativeImportDialog) filter() {
	d.shown = d.shown[:0]
	for i, r := range d.rows {
		if r.InProject || d.showAll.Checked {
			d.shown = append(d.shown, i)
		}
	}
	d.list.Refresh()
	d.update()
}

// selectedKeys returns the checked keys of the listed rows.
func (d *NativeImportDialog) selectedKeys() []string {
	var keys []string
	for _, i := range d.shown {
		if k := d.rows[i].Key; d.checked[k] {
			keys = append(keys, k)
		}
	}
	return keys
}

// selectedText says what the checked rows hold: "34 sessions and their
// 4 sub-agents" (each sub-agent becomes a session of its own).
func (d *NativeImportDialog) selectedText() string {
	n, subs := 0, 0
	for _, i := range d.shown {
		if r := d.rows[i]; d.checked[r.Key] {
			n, subs = n+1, subs+r.Subagents
		}
	}
	switch {
	case subs == 0:
		return display.Plural(n, "session")
	case n == 1 && subs == 1:
		return "1 session and its sub-agent"
	case n == 1:
		return "1 session and its " + display.Plural(subs, "sub-agent")
	}
	return display.Plural(n, "session") + " and their " + display.Plural(subs, "sub-agent")
}

// setAll checks or unchecks every listed row.
func (d *NativeImportDialog) setAll(on bool) {
	for _, i := range d.shown {
		d.checked[d.rows[i].Key] = on
	}
	d.list.Refresh()
	d.update()
}

// update enables the controls for the dialog's state.
func (d *NativeImportDialog) update() {
	choosing := d.state == nativeChoosing
	n := len(d.selectedKeys())
	d.importBtn.SetText(fmt.Sprintf("Import %d", n))
	enable(d.importBtn, choosing && n > 0)
	enable(d.selectAll, choosing && len(d.shown) > 0)
	enable(d.selectNone, choosing && n > 0)
	enable(d.showAll, choosing)
	enable(d.closeBtn, d.state != nativeImporting)
	if d.state == nativeImporting {
		d.importBtn.Hide()
		d.cancelBtn.Show()
		d.progress.Show()
	} else {
		d.cancelBtn.Hide()
		d.importBtn.Show()
	}
	if d.state == nativeDone {
		d.importBtn.Hide()
	}
}

// disableable is a widget that can be enabled and disabled.
type disableable interface {
	Enable()
	Disable()
}

func enable(w disableable, on bool) {
	if on {
		w.Enable()
	} else {
		w.Disable()
	}
}

func (d *NativeImportDialog) onImport() {
	keys := d.selectedKeys()
	if len(keys) == 0 || d.state != nativeChoosing {
		return
	}
	d.state = nativeImporting
	d.progress.SetValue(0)
	d.setStatus("Importing " + d.selectedText() + "…")
	d.update()
	d.list.Refresh() // check boxes are disabled while importing
	d.actions.ImportNative(keys)
}

func (d *NativeImportDialog) onCancel() {
	d.cancelBtn.Disable()
	d.setStatus("Cancelling after the session being stored…")
	d.actions.CancelNativeImport()
}

func (d *NativeImportDialog) length() int { return len(d.shown) }

// createItem builds a row: a check box, the first prompt over the
// details, and the state on the right.
func (d *NativeImportDialog) createItem() fyne.CanvasObject {
	title := widget.NewLabel("")
	title.TextStyle.Bold = true
	title.Truncation = fyne.TextTruncateEllipsis
	detail := widget.NewLabel("")
	detail.Truncation = fyne.TextTruncateEllipsis
	detail.Importance = widget.LowImportance
	state := widget.NewLabel("")
	check := widget.NewCheck("", nil)
	return container.NewBorder(nil, nil, check, state, container.NewVBox(title, detail))
}

// updateItem shows row i of the list in item.
func (d *NativeImportDialog) updateItem(i widget.ListItemID, item fyne.CanvasObject) {
	if i >= len(d.shown) {
		return
	}
	r := d.rows[d.shown[i]]
	c := item.(*fyne.Container)
	text := c.Objects[0].(*fyne.Container)
	check, state := c.Objects[1].(*widget.Check), c.Objects[2].(*widget.Label)
	check.OnChanged = nil // SetChecked must not count as the user's change
	check.SetChecked(d.checked[r.Key])
	check.OnChanged = func(on bool) {
		d.checked[r.Key] = on
		d.update()
	}
	enable(check, d.state == nativeChoosing)
	title := r.FirstPrompt
	if title == "" {
		title = "(no prompt)"
	}
	text.Objects[0].(*widget.Label).SetText(title)
	text.Objects[1].(*widget.Label).SetText(nativeDetail(r))
	state.SetText(r.State)
	state.Importance = stateImportance(r.State)
	state.Refresh()
}

// nativeDetail is a row's second line: agent, date, size, project.
func nativeDetail(r NativeRow) string {
	parts := []string{r.Agent}
	if !r.Started.IsZero() {
		parts = append(parts, r.Started.Local().Format("2006-01-02 15:04"))
	}
	parts = append(parts, display.Bytes(r.Size))
	if r.Subagents > 0 {
		parts = append(parts, display.Plural(r.Subagents, "sub-agent"))
	}
	project := r.Project
	if project == "" {
		project = "unknown folder"
	}
	return strings.Join(parts, " · ") + " · " + project
}

// stateImportance colours a state: new work stands out, problems warn.
func stateImportance(state string) widget.Importance {
	switch state {
	case "new", "new lines":
		return widget.SuccessImportance
	case "changed", "unreadable":
		return widget.WarningImportance
	}
	return widget.LowImportance
}
