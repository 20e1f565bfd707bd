package app

// Deep links: open the window at a session and event, from the command
// line (lazuli --open PATH --session S3 --event 120) or a lazuli:// URL
// (lazuli://open?path=PATH&session=3&event=120, which the installed
// .desktop entry hands to lazuli).

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"

	"github.com/lazuli-app/lazuli/chronicle"
	"github.com/lazuli-app/lazuli/cli"
	"github.com/lazuli-app/lazuli/safelink"
	"github.com/lazuli-app/lazuli/views"
)

// DeepLink is the session (and event) a window opens at.
type DeepLink struct {
	Session int64 // a session id of the project's first store; 0: none
	Event   int64 // an event seq in it; 0: the session's end
}

// URLScheme is the scheme of Lazuli's links.
const URLScheme = chronicle.URLScheme

// ParseURL reads a lazuli://open?path=P&session=S&event=N link.
func ParseURL(raw string) (path string, link DeepLink, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", link, fmt.Errorf("link %q: %w", raw, err)
	}
	if u.Scheme != URLScheme || (u.Host != "open" && u.Opaque != "open") {
		return "", link, fmt.Errorf("link %q: want %s://open?path=…&session=…&event=…", raw, URLScheme)
	}
	q := u.Query()
	link, err = parseLink(q.Get("session"), q.Get("event"))
	return q.Get("path"), link, err
}

// parseLink reads --session and --event.
func parseLink(session, event string) (DeepLink, error) {
	var link DeepLink
	if session == "" {
		if event != "" {
			return link, errors.New("--event needs --session")
		}
		return link, nil
	}
	id, err := cli.ParseSessionID(session)
	if err != nil {
		return link, fmt.Errorf("--session: %w", err)
	}
	link.Session = id
	if event != "" {
		n, err := strconv.ParseInt(event, 10, 64)
		if err != nil || n <= 0 {
			return link, fmt.Errorf("--event %q: want an event number (1 or more)", event)
		}
		link.Event = n
	}
	return link, nil
}

// Link returns the lazuli:// link to an event of a session (event 0: the
// session).
func Link(path string, session, event int64) string {
	return chronicle.Link(path, session, event)
}

// openLink shows the link's session of the project's first store, scrolled
// to its event (loading earlier events when it is among them), as a search
// hit would.
func (sh *shownSession) openLink(link DeepLink) {
	if len(sh.pw.wts) == 0 {
		return
	}
	sh.openLinkIn(sh.pw.wts[0].StorePath, link)
}

// openLinkIn shows the link's session of the store at storePath, as
// openLink does (a chronicle report's citations name their store).
func (sh *shownSession) openLinkIn(storePath string, link DeepLink) {
	if link.Session <= 0 || storePath == "" {
		return
	}
	ref := views.SessionRef{StorePath: storePath, ID: link.Session}
	if link.Event <= 0 {
		sh.pw.mv.ShowFilesTab(false)
		sh.SelectSession(ref)
		return
	}
	sh.OpenSearchHit(views.SearchHit{Ref: ref, Seq: link.Event})
}

// OpenLink opens a link tapped in the transcript (views.LinkActions).
func (sh *shownSession) OpenLink(raw string) { sh.openLinkFrom(sh.pw.win, raw) }

// openLinkFrom opens a link tapped in window w, as safelink says: a web
// address with the desktop's opener; a lazuli:// link in this window, and
// only to a session of one of its stores, after a dialog in w has said
// where it goes and the user chose Open (a link never opens another file,
// and is never handed to the desktop); anything else not at all. It
// returns the dialog it showed, if any.
func (sh *shownSession) openLinkFrom(w fyne.Window, raw string) *dialog.ConfirmDialog {
	pw := sh.pw
	switch safelink.Classify(raw) {
	case safelink.Web:
		pw.openWebOrCopy("open link", raw)
		return nil
	case safelink.Lazuli:
		path, link, err := sh.linkTarget(raw)
		if err != nil {
			pw.showError("open link", err)
			return nil
		}
		what := fmt.Sprintf("Session S%d", link.Session)
		if link.Event > 0 {
			what += fmt.Sprintf(", event %d,", link.Event)
		}
		what += " of " + path + "\n\n" + raw
		return views.ConfirmOpenLink(w, what, func() {
			sh.openLinkIn(path, link)
			pw.win.RequestFocus()
		})
	}
	pw.showError("open link", fmt.Errorf("not a web address or a Lazuli link: %q", raw))
	return nil
}

// linkTarget reads a lazuli:// link tapped in the window: the store it
// names (the project's first when it names none) must be one of the
// window's, and it must name a session.
func (sh *shownSession) linkTarget(raw string) (string, DeepLink, error) {
	path, link, err := ParseURL(raw)
	if err != nil {
		return "", link, err
	}
	if link.Session <= 0 {
		return "", link, fmt.Errorf("link %q names no session", raw)
	}
	for _, wt := range sh.pw.wts {
		if path == "" || filepath.Clean(path) == filepath.Clean(wt.StorePath) {
			return wt.StorePath, link, nil
		}
	}
	return "", link, fmt.Errorf("link %q: %s is not a store of this window", raw, path)
}
