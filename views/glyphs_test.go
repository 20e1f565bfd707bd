package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// glyphLines are the glyph classes agents print, each followed by a space
// and by a tab (in Fyne 2.8.1 with its default fonts, "→ " drew as "→�"
// and "→\t" as a row of "�").
var glyphLines = []string{
	"arrows: a → b ← c ⇒ d ↳ e → \tend",
	"box: ├── src │ └── main.go ─ ╭─╮ █ ▶ ●",
	"checks: ✓ ok ✔ done ✗ fail ✘ no ☐ ☑ ⚠ warn",
	"emoji: ✅ pass 🚀 ship ❌ fail \tend",
	"tab:\tone\ttwo → \tthree",
}

// TestGlyphClassesRender renders a prompt and an assistant message holding
// every glyph class with Lazuli's theme and compares them with the golden
// image (testdata/glyphs.png, checked by eye: no "�", no gaps).
func TestGlyphClassesRender(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(520, 330))
	test.ApplyTheme(t, Theme{})
	text := ""
	for _, l := range glyphLines {
		text += l + "\n"
	}
	tr.SetSession(store.Session{ID: 1}, stored(codec.UserMessage(text), codec.AssistantText("- "+glyphLines[0]+"\n- "+glyphLines[1])), nil)
	q.drain()
	test.AssertRendersToImage(t, "glyphs.png", w.Canvas())
}

func TestExpandTabs(t *testing.T) {
	for in, want := range map[string]string{
		"":           "",
		"a\tb":       "a   b",
		"\tx":        "    x",
		"abcd\te":    "abcd    e",
		"→\t→":       "→   →",
		"ab\n\tc\td": "ab\n    c   d",
		"no tabs":    "no tabs",
	} {
		if got := expandTabs(in); got != want {
			t.Errorf("expandTabs(%q) = %q, want %q", in, got, want)
		}
	}
}
