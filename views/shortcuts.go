package views

// The app's keyboard shortcuts in one table: the menus, the window's and
// the views' bindings take their keys from it (Shortcut), and Help ›
// Keyboard shortcuts lists it (ShowShortcuts), so the list cannot say
// other keys than the app answers.

import (
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// KeyID names a keyboard shortcut of the app.
type KeyID int

// The app's shortcuts (Ctrl is Cmd on macOS).
const (
	KeyNone           KeyID = iota // a key of a widget, not a shortcut
	KeyOpenStore                   // Ctrl+O
	KeyImport                      // Ctrl+I
	KeyExport                      // Ctrl+E
	KeyCloseWindow                 // Ctrl+W
	KeyNewSession                  // Ctrl+N
	KeyFind                        // Ctrl+F
	KeySearch                      // Ctrl+K
	KeyNextPrompt                  // Alt+Down
	KeyPreviousPrompt              // Alt+Up
	KeyOutline                     // Ctrl+L
	KeyTop                         // Ctrl+Home
	KeyBottom                      // Ctrl+End
	KeyInsights                    // Ctrl+Shift+I
	KeySQLConsole                  // Ctrl+Shift+L
	KeyRecentEdits                 // Ctrl+Shift+E
	KeyRunQuery                    // Ctrl+Enter in the SQL console
	KeySend                        // Ctrl+Enter in the prompt box
	KeyShortcuts                   // Ctrl+/
	KeyTranscriptTab               // Ctrl+1
	KeyFilesTab                    // Ctrl+2
)

// KeyBinding is a row of the shortcuts table: a shortcut (ID and
// Shortcut set) or a key a widget handles (Keys set).
type KeyBinding struct {
	ID       KeyID
	Group    string // where it works: "Window", "Session", …
	Action   string // what it does, as the menu says it
	Shortcut fyne.Shortcut
	Keys     string // the keys of a widget's binding (no Shortcut)
}

// KeyText is how the binding's keys read: "Ctrl+Shift+I", "Home".
func (b KeyBinding) KeyText() string {
	if b.Shortcut == nil {
		return b.Keys
	}
	return shortcutText(b.Shortcut)
}

func ctrl(k fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}
}

func ctrlShift(k fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
}

func alt(k fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierAlt}
}

// keyTable is every shortcut and key of the app, in the order Help ›
// Keyboard shortcuts lists them.
var keyTable = []KeyBinding{
	{ID: KeyOpenStore, Group: "Window", Action: "Open session store…", Shortcut: ctrl(fyne.KeyO)},
	{ID: KeyImport, Group: "Window", Action: "Import transcript…", Shortcut: ctrl(fyne.KeyI)},
	{ID: KeyExport, Group: "Window", Action: "Export session as .azs…", Shortcut: ctrl(fyne.KeyE)},
	{ID: KeyCloseWindow, Group: "Window", Action: "Close a read-only or secondary window", Shortcut: ctrl(fyne.KeyW)},
	{ID: KeyInsights, Group: "Window", Action: "Insights…", Shortcut: ctrlShift(fyne.KeyI)},
	{ID: KeySQLConsole, Group: "Window", Action: "SQL console…", Shortcut: ctrlShift(fyne.KeyL)},
	{ID: KeyRecentEdits, Group: "Window", Action: "Recent edits…", Shortcut: ctrlShift(fyne.KeyE)},
	{ID: KeyShortcuts, Group: "Window", Action: "Keyboard shortcuts", Shortcut: ctrl(fyne.KeySlash)},
	{Group: "Window", Action: "Move to the next / previous control", Keys: "Tab / Shift+Tab"},
	{ID: KeyNewSession, Group: "Session", Action: "New session", Shortcut: ctrl(fyne.KeyN)},
	{ID: KeyFind, Group: "Session", Action: "Find in session", Shortcut: ctrl(fyne.KeyF)},
	{ID: KeySearch, Group: "Session", Action: "Search all sessions…", Shortcut: ctrl(fyne.KeyK)},
	{ID: KeyNextPrompt, Group: "Session", Action: "Next prompt", Shortcut: alt(fyne.KeyDown)},
	{ID: KeyPreviousPrompt, Group: "Session", Action: "Previous prompt", Shortcut: alt(fyne.KeyUp)},
	{ID: KeyOutline, Group: "Session", Action: "Prompts of this session…", Shortcut: ctrl(fyne.KeyL)},
	{ID: KeyTranscriptTab, Group: "Session", Action: "Transcript tab", Shortcut: ctrl(fyne.Key1)},
	{ID: KeyFilesTab, Group: "Session", Action: "Files tab", Shortcut: ctrl(fyne.Key2)},
	{ID: KeyTop, Group: "Session", Action: "Go to the start of the session", Shortcut: ctrl(fyne.KeyHome)},
	{ID: KeyBottom, Group: "Session", Action: "Go to the end of the session", Shortcut: ctrl(fyne.KeyEnd)},
	{ID: KeySend, Group: "Session", Action: "Send the prompt", Shortcut: ctrl(fyne.KeyReturn)},
	{Group: "Transcript", Action: "Scroll to the start / end", Keys: "Home / End"},
	{Group: "Transcript", Action: "Scroll a page up / down", Keys: "Page Up / Page Down"},
	{Group: "Transcript", Action: "Next / previous prompt", Keys: "j / k"},
	{Group: "Transcript", Action: "A card's action (expand, copy, fork, open sub-agent) when Tab is on it", Keys: "Enter / Space"},
	{Group: "Find bar", Action: "Close the find bar", Keys: "Esc"},
	{Group: "Sidebar", Action: "Move through the sessions", Keys: "Up / Down"},
	{Group: "Sidebar", Action: "Open the session", Keys: "Enter / Space"},
	{Group: "Sidebar", Action: "From the filter: to the matching sessions", Keys: "Down"},
	{Group: "Sidebar", Action: "From the filter: open the first match", Keys: "Enter"},
	{Group: "Sidebar", Action: "From the filter: clear it", Keys: "Esc"},
	{Group: "Search (Ctrl+K)", Action: "Move through the hits", Keys: "Up / Down"},
	{Group: "Search (Ctrl+K)", Action: "Open the hit", Keys: "Enter"},
	{Group: "Search (Ctrl+K)", Action: "Close", Keys: "Esc"},
	{Group: "Dialogs and lists", Action: "Press the focused button, open the chosen row", Keys: "Enter / Space"},
	{Group: "Dialogs and lists", Action: "Close the dialog", Keys: "Esc"},
	{Group: "Secondary windows", Action: "Close the window", Keys: "Esc / " + shortcutText(ctrl(fyne.KeyW))},
	{ID: KeyRunQuery, Group: "Secondary windows", Action: "Run the SQL console's query", Shortcut: ctrl(fyne.KeyReturn)},
	{Group: "Secondary windows", Action: "Team: to the search box", Keys: shortcutText(ctrl(fyne.KeyK))},
}

// KeyBindings returns the shortcuts table.
func KeyBindings() []KeyBinding { return keyTable }

// Shortcut returns the shortcut id stands for; nil for an unknown id.
func Shortcut(id KeyID) fyne.Shortcut {
	for _, b := range keyTable {
		if b.ID == id && id != KeyNone {
			return b.Shortcut
		}
	}
	return nil
}

// isShortcut reports whether s is id's shortcut.
func isShortcut(s fyne.Shortcut, id KeyID) bool {
	want := Shortcut(id)
	return want != nil && s != nil && s.ShortcutName() == want.ShortcutName()
}

// shortcutText reads s for people: "Ctrl+Shift+I" ("Cmd+…" on macOS).
func shortcutText(s fyne.Shortcut) string {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok {
		return s.ShortcutName()
	}
	var parts []string
	m := cs.Modifier
	if m&fyne.KeyModifierControl != 0 {
		parts = append(parts, "Ctrl")
	}
	if m&fyne.KeyModifierSuper != 0 {
		if runtime.GOOS == "darwin" {
			parts = append(parts, "Cmd")
		} else {
			parts = append(parts, "Super")
		}
	}
	if m&fyne.KeyModifierAlt != 0 {
		parts = append(parts, "Alt")
	}
	if m&fyne.KeyModifierShift != 0 {
		parts = append(parts, "Shift")
	}
	return strings.Join(append(parts, keyText(cs.KeyName)), "+")
}

// keyText is a key's name for people.
func keyText(k fyne.KeyName) string {
	switch k {
	case fyne.KeyReturn:
		return "Enter"
	case fyne.KeyPageUp:
		return "Page Up"
	case fyne.KeyPageDown:
		return "Page Down"
	}
	return string(k)
}

// ShowShortcuts opens the list of the app's keyboard shortcuts over w;
// Enter or Esc closes it.
func ShowShortcuts(w fyne.Window) {
	grid := container.NewGridWithColumns(2)
	group := ""
	for _, b := range keyTable {
		if b.Group != group {
			group = b.Group
			grid.Add(widget.NewLabelWithStyle(group, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
			grid.Add(widget.NewLabel(""))
		}
		grid.Add(widget.NewLabel(b.Action))
		grid.Add(widget.NewLabelWithStyle(b.KeyText(), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true}))
	}
	scroll := container.NewVScroll(grid)
	d := dialog.NewCustomWithoutButtons("Keyboard shortcuts", scroll, w)
	closeBtn := newDialogButton("Close", d.Hide, d.Hide)
	d.SetButtons([]fyne.CanvasObject{closeBtn})
	size := w.Canvas().Size()
	d.Resize(fyne.NewSize(min(size.Width*0.9, 760), min(size.Height*0.9, 680)))
	d.Show()
	w.Canvas().Focus(closeBtn)
}
