package views

import (
	"bytes"
	"encoding/csv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
	"github.com/lazuli-app/lazuli/display"
)

// SQLTable is a query's answer as text cells.
type SQLTable struct {
	Columns   []string
	Rows      [][]string
	Truncated bool
}

// SQLDoc documents a view of the SQL surface.
type SQLDoc struct{ Name, Columns string }

// SQLExample is an example query.
type SQLExample struct{ Title, Query string }

// SQLActions are the console's intents; app runs the query in the
// background and answers with SetResult or SetError.
type SQLActions interface {
	RunSQL(query string)
}

// SQLConsole is the content of the SQL console window: a query box, the
// results in a table (copy as CSV or TSV), the schema and examples.
type SQLConsole struct {
	a      SQLActions
	query  *keyEntry
	status *widget.Label
	table  *widget.Table
	result SQLTable
	root   fyne.CanvasObject
}

// NewSQLConsole builds the console.
func NewSQLConsole(a SQLActions, docs []SQLDoc, examples []SQLExample) *SQLConsole {
	c := &SQLConsole{a: a}
	c.query = newKeyEntry(true)
	c.query.onShortcut = c.onShortcut
	c.query.onKey = func(ev *fyne.KeyEvent) bool { return passToWindow(c.query, ev, nil) }
	c.query.SetPlaceHolder("SELECT … (read-only)")
	c.query.SetMinRowsVisible(4)
	c.query.Wrapping = fyne.TextWrapWord
	c.status = widget.NewLabel("")
	c.status.Wrapping = fyne.TextWrapWord
	run := widget.NewButton("Run", c.Run)
	run.Importance = widget.HighImportance
	copyCSV := widget.NewButton("Copy CSV", func() { fyne.CurrentApp().Clipboard().SetContent(c.Delimited(',')) })
	copyTSV := widget.NewButton("Copy TSV", func() { fyne.CurrentApp().Clipboard().SetContent(c.Delimited('\t')) })
	c.table = widget.NewTable(
		func() (int, int) { return len(c.result.Rows) + 1, len(c.result.Columns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			if id.Row == 0 {
				l.TextStyle = fyne.TextStyle{Bold: true}
				l.SetText(c.result.Columns[id.Col])
				return
			}
			l.TextStyle = fyne.TextStyle{}
			l.SetText(c.result.Rows[id.Row-1][id.Col])
		})
	titles := make([]string, len(examples))
	for i, e := range examples {
		titles[i] = e.Title
	}
	ex := widget.NewSelect(titles, func(t string) {
		for _, e := range examples {
			if e.Title == t {
				c.query.SetText(e.Query)
			}
		}
	})
	ex.PlaceHolder = "Example queries…"
	schema := container.NewVBox(widget.NewLabelWithStyle("Views", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	for _, d := range docs {
		l := widget.NewLabel(d.Name + ": " + d.Columns)
		l.Wrapping = fyne.TextWrapWord
		schema.Add(l)
	}
	top := container.NewBorder(nil, container.NewHBox(run, copyCSV, copyTSV, ex), nil, nil, c.query)
	main := container.NewBorder(top, c.status, nil, nil, c.table)
	split := container.NewHSplit(main, container.NewVScroll(schema))
	split.Offset = 0.72
	c.root = split
	return c
}

// Content returns the console's root object.
func (c *SQLConsole) Content() fyne.CanvasObject { return c.root }

// Query returns the query box.
func (c *SQLConsole) Query() *widget.Entry { return &c.query.Entry }

// onShortcut runs the query on Ctrl+Enter (Cmd+Enter on macOS) and passes
// the window's shortcuts (Ctrl+W) on.
func (c *SQLConsole) onShortcut(s fyne.Shortcut) bool {
	if cs, ok := s.(*desktop.CustomShortcut); ok && isSendShortcut(cs) {
		c.Run()
		return true
	}
	return passToWindow(c.query, nil, s)
}

// Run sends the query.
func (c *SQLConsole) Run() {
	c.status.SetText("Running…")
	c.a.RunSQL(c.query.Text)
}

// SetResult shows a query's answer.
func (c *SQLConsole) SetResult(r SQLTable) {
	c.result = r
	msg := display.Plural(len(r.Rows), "row")
	if r.Truncated {
		msg += " — truncated: more rows than the limit"
	}
	c.status.SetText(msg)
	for i := range r.Columns {
		c.table.SetColumnWidth(i, 160)
	}
	c.table.Refresh()
}

// SetError shows why a query failed.
func (c *SQLConsole) SetError(err error) {
	c.result = SQLTable{}
	c.status.SetText(err.Error())
	c.table.Refresh()
}

// Status returns the status line (for tests).
func (c *SQLConsole) Status() string { return c.status.Text }

// Delimited returns the result as CSV (sep ',') or TSV (sep '\t').
func (c *SQLConsole) Delimited(sep rune) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Comma = sep
	_ = w.Write(c.result.Columns) // a bytes.Buffer does not fail
	for _, r := range c.result.Rows {
		_ = w.Write(r)
	}
	w.Flush()
	return b.String()
}
