package app

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/chronicle"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/views"
)

// urlRecorder is an app whose OpenURL (the desktop's opener: xdg-open)
// only records what it was asked to open.
type urlRecorder struct {
	fyne.App
	opened []string
}

func (a *urlRecorder) OpenURL(u *url.URL) error {
	a.opened = append(a.opened, u.String())
	return nil
}

// A link tapped in a transcript or a report reaches the desktop's opener
// only when it is http, https or mailto; a lazuli:// link opens a session
// of the window's stores after a dialog naming it, and nothing else.
func TestOpenLink(t *testing.T) {
	fa := &urlRecorder{App: test.NewTempApp(t)}
	wt, st := openTestWorktree(t)
	s, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "linked",
		[]codec.Event{codec.UserMessage("hi"), codec.AssistantText("there")})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.azs")
	pw := testWindow(t, fa, wt)
	defer pw.close()
	link := chronicle.Link(wt.StorePath, s.ID, 2)
	for _, tc := range []struct {
		name   string
		raw    string
		opened string // what the desktop was asked to open
		dialog string // what the confirmation says; "" for none
		err    string // what the error says; "" for none
	}{
		{"https", "https://example.com/a", "https://example.com/a", "", ""},
		{"mailto", "MAILTO:a@example.com", "mailto:a@example.com", "", ""},
		{"javascript", "javascript:alert(1)", "", "", "not a web address or a Lazuli link"},
		{"mixed case javascript", "JaVaScRiPt:alert(1)", "", "", "not a web address or a Lazuli link"},
		{"control before javascript", "\x01javascript:alert(1)", "", "", "not a web address or a Lazuli link"},
		{"file", "file:///etc/passwd", "", "", "not a web address or a Lazuli link"},
		{"ssh", "ssh://evil.example", "", "", "not a web address or a Lazuli link"},
		{"scheme-relative", "//evil.example/x", "", "", "not a web address or a Lazuli link"},
		{"lazuli", link, "", "Session S" + strconv.FormatInt(s.ID, 10) + ", event 2, of " + wt.StorePath, ""},
		{"lazuli to another file", chronicle.Link(other, 1, 0), "", "", "is not a store of this window"},
		{"lazuli without a session", "lazuli://open?path=" + url.QueryEscape(wt.StorePath), "", "", "names no session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fa.opened = nil
			d := pw.shown.openLinkFrom(pw.win, tc.raw)
			if got := strings.Join(fa.opened, " "); got != tc.opened {
				t.Errorf("openLinkFrom(%q) opened %q, want %q", tc.raw, got, tc.opened)
			}
			text := dialogText(pw.win)
			switch {
			case tc.dialog != "":
				if d == nil || !strings.Contains(text, tc.dialog) || !strings.Contains(text, tc.raw) {
					t.Fatalf("openLinkFrom(%q) asked %q, want it to name %q and the link", tc.raw, text, tc.dialog)
				}
				tapDialogButton(t, pw.win, "Open")
				pw.wg.Wait()
				if cur := pw.shown.current; cur.ID != s.ID || cur.StorePath != wt.StorePath {
					t.Errorf("the link showed %+v, want session %d of %s", cur, s.ID, wt.StorePath)
				}
			case d != nil:
				t.Errorf("openLinkFrom(%q) asked to confirm %q", tc.raw, text)
			case tc.err != "":
				if !strings.Contains(text, tc.err) {
					t.Errorf("openLinkFrom(%q) says %q, want %q", tc.raw, text, tc.err)
				}
				tapDialogButton(t, pw.win, "OK")
			}
		})
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a link to another store touched it: %v", err)
	}
}

// A lazuli:// link the user cancels opens nothing.
func TestOpenLinkCancelled(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	s, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "linked", []codec.Event{codec.UserMessage("hi")})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	if pw.shown.openLinkFrom(pw.win, chronicle.Link(wt.StorePath, s.ID, 0)) == nil {
		t.Fatal("no confirmation")
	}
	tapDialogButton(t, pw.win, "Cancel")
	pw.wg.Wait()
	if cur := pw.shown.current; cur.ID != 0 {
		t.Errorf("a cancelled link showed %+v", cur)
	}
}

// A ref chip opens its address only when the desktop may open it.
func TestOpenRefScheme(t *testing.T) {
	fa := &urlRecorder{App: test.NewTempApp(t)}
	wt, st := openTestWorktree(t)
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	for _, tc := range []struct {
		name, url, opened string
	}{
		{"https", "https://github.com/o/r/pull/1", "https://github.com/o/r/pull/1"},
		{"file", "file:///etc/passwd", ""},
		{"javascript", "JaVaScRiPt:alert(1)", ""},
		{"ssh", "ssh://evil.example", ""},
		{"user name before the host", "https://github.com@evil.example/o/r", ""},
		{"no host", "https:evil.example", ""},
		{"scheme-relative", "//evil.example/x", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fa.opened = nil
			pw.shown.OpenRef(views.RefChip{Kind: "url", Value: tc.url, URL: tc.url})
			if got := strings.Join(fa.opened, " "); got != tc.opened {
				t.Errorf("OpenRef(%q) opened %q, want %q", tc.url, got, tc.opened)
			}
			if tc.opened == "" {
				if text := dialogText(pw.win); !strings.Contains(text, "not a web address") {
					t.Errorf("OpenRef(%q) says %q", tc.url, text)
				}
				tapDialogButton(t, pw.win, "OK")
			}
		})
	}
}

// noOpener is an app whose desktop has no opener: OpenURL fails as
// Fyne's does when xdg-open is not installed.
type noOpener struct{ fyne.App }

func (noOpener) OpenURL(*url.URL) error {
	return &exec.Error{Name: "xdg-open", Err: exec.ErrNotFound}
}

// Without xdg-open, a ref chip (or a web link in the transcript) copies
// its address and says so, rather than showing exec's error; a link
// safelink refuses is still refused, not copied.
func TestOpenRefWithoutOpener(t *testing.T) {
	fa := noOpener{App: test.NewTempApp(t)}
	wt, st := openTestWorktree(t)
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	const link = "https://github.com/o/r/pull/1"
	for _, open := range []struct {
		name string
		fn   func()
	}{
		{"ref chip", func() { pw.shown.OpenRef(views.RefChip{Kind: "pr", Value: "o/r#1", URL: link}) }},
		{"transcript link", func() { pw.shown.OpenLink(link) }},
	} {
		fa.Clipboard().SetContent("")
		open.fn()
		pw.wg.Wait()
		if got := fa.Clipboard().Content(); got != link {
			t.Errorf("%s: clipboard %q, want %q", open.name, got, link)
		}
		if got := pw.mv.PromptBox().Status(); !strings.HasPrefix(got, "No browser opener found; link copied") {
			t.Errorf("%s: status %q", open.name, got)
		}
		if text := dialogText(pw.win); text != "" {
			t.Errorf("%s: a dialog says %q", open.name, text)
		}
	}
	fa.Clipboard().SetContent("")
	pw.shown.OpenRef(views.RefChip{Kind: "url", Value: "file:///etc/passwd", URL: "file:///etc/passwd"})
	if got := fa.Clipboard().Content(); got != "" {
		t.Errorf("a refused link was copied: %q", got)
	}
	tapDialogButton(t, pw.win, "OK")
}
