package app

// Deep links: open the window at a session and event, from the command
// line (lazuli --open PATH --session S3 --event 120) or a lazuli:// URL
// (lazuli://open?path=PATH&session=3&event=120, which the installed
// .desktop entry hands to lazuli).

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/lazuli-app/lazuli/chronicle"
	"github.com/lazuli-app/lazuli/cli"
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
		sh.SelectSession(ref)
		return
	}
	sh.OpenSearchHit(views.SearchHit{Ref: ref, Seq: link.Event})
}
