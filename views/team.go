package views

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// TeamActions are the intents of the Team window, which browses the
// sessions a team pushed to its PostgreSQL database. The app implements
// them; results come back through the TeamBrowser's setters.
type TeamActions interface {
	LinkActions              // a link in the transcript shown
	TeamConnect(url string)  // connect (or reconnect) and list the sessions
	TeamSelect(id int64)     // show team session id
	TeamSearch(query string) // search the team's events
}

// TeamSession is one row of the Team source.
type TeamSession struct {
	ID                                        int64 // the team number
	Repository, Worktree, Name, Machine, User string
	Created                                   string
	Events                                    int64
}

// TeamHit is one search hit in the team.
type TeamHit struct {
	SessionID int64 // the team number
	Title     string
	Snippet   string
}

// TeamBrowser is the Team window's content: a connection row, the team's
// sessions grouped by repository and worktree, a search box (Ctrl+K) with
// its hits, and the chosen session's transcript, read-only.
type TeamBrowser struct {
	Root       fyne.CanvasObject
	actions    TeamActions
	url        *keyEntry
	status     *widget.Label
	tree       *widget.Tree
	search     *keyEntry
	hits       *widget.List
	transcript *Transcript

	children map[string][]string    // tree node -> children
	sessions map[string]TeamSession // leaf node -> session
	hitRows  []TeamHit
}

// NewTeamBrowser returns a browser whose URL box holds url.
func NewTeamBrowser(a TeamActions, url string) *TeamBrowser {
	b := &TeamBrowser{actions: a, children: map[string][]string{"": nil}, sessions: map[string]TeamSession{}}
	b.url = windowEntry()
	b.url.SetPlaceHolder("postgres://user@host/db?sslmode=verify-full (password from ~/.pgpass)")
	b.url.SetText(url)
	b.url.OnSubmitted = func(s string) { a.TeamConnect(s) }
	connect := widget.NewButton("Connect", func() { a.TeamConnect(b.url.Text) })
	b.status = widget.NewLabel("")
	b.status.Truncation = fyne.TextTruncateEllipsis
	b.tree = widget.NewTree(
		func(id widget.TreeNodeID) []widget.TreeNodeID { return b.children[id] },
		func(id widget.TreeNodeID) bool { _, leaf := b.sessions[id]; return !leaf },
		func(bool) fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TreeNodeID, _ bool, o fyne.CanvasObject) { o.(*widget.Label).SetText(b.nodeLabel(id)) },
	)
	b.tree.OnSelected = func(id widget.TreeNodeID) {
		if s, ok := b.sessions[id]; ok {
			a.TeamSelect(s.ID)
		}
	}
	b.search = windowEntry()
	b.search.SetPlaceHolder("Search the team (Ctrl+K)")
	b.search.OnSubmitted = func(q string) {
		if strings.TrimSpace(q) != "" {
			a.TeamSearch(q)
		}
	}
	b.hits = widget.NewList(func() int { return len(b.hitRows) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			h := b.hitRows[i]
			o.(*widget.Label).SetText(h.Title + " · " + h.Snippet)
		})
	b.hits.OnSelected = func(i widget.ListItemID) { a.TeamSelect(b.hitRows[i].SessionID) }
	b.hits.Hide()
	b.transcript = NewTranscript(readOnly{open: a.OpenLink})
	top := container.NewBorder(nil, nil, nil, connect, b.url)
	left := container.NewBorder(container.NewVBox(b.search, b.status), nil, nil, nil,
		container.NewVSplit(b.tree, b.hits))
	split := container.NewHSplit(left, b.transcript.Content())
	split.Offset = 0.3
	b.Root = container.NewBorder(top, nil, nil, nil, split)
	return b
}

// FocusSearch puts the keyboard in the search box (Ctrl+K).
func (b *TeamBrowser) FocusSearch(c fyne.Canvas) { c.Focus(b.search) }

// Status is the line under the search box.
func (b *TeamBrowser) Status() string { return b.status.Text }

// Sessions returns the sessions the tree shows, by team number.
func (b *TeamBrowser) Sessions() map[int64]TeamSession {
	out := make(map[int64]TeamSession, len(b.sessions))
	for _, s := range b.sessions {
		out[s.ID] = s
	}
	return out
}

// Transcript is the transcript of the chosen session.
func (b *TeamBrowser) Transcript() *Transcript { return b.transcript }

// SetStatus shows a line under the search box: what is connected, or why not.
func (b *TeamBrowser) SetStatus(text string) { b.status.SetText(text) }

// SetSessions replaces the tree: repository › worktree › sessions, newest
// first as given.
func (b *TeamBrowser) SetSessions(list []TeamSession) {
	b.children = map[string][]string{"": nil}
	b.sessions = map[string]TeamSession{}
	for _, s := range list {
		repo := "r\x00" + s.Repository
		wt := "w\x00" + s.Repository + "\x00" + s.Worktree
		if _, ok := b.children[repo]; !ok {
			b.children[""] = append(b.children[""], repo)
			b.children[repo] = nil
		}
		if _, ok := b.children[wt]; !ok {
			b.children[repo] = append(b.children[repo], wt)
			b.children[wt] = nil
		}
		leaf := "s\x00" + strconv.FormatInt(s.ID, 10)
		b.children[wt] = append(b.children[wt], leaf)
		b.sessions[leaf] = s
	}
	sort.Strings(b.children[""])
	b.tree.Refresh()
	b.tree.OpenAllBranches()
}

// nodeLabel is the text of a tree node.
func (b *TeamBrowser) nodeLabel(id string) string {
	if s, ok := b.sessions[id]; ok {
		return fmt.Sprintf("%s · %s@%s · %s", store.DisplayName(s.ID, s.Name), s.User, s.Machine, s.Created)
	}
	parts := strings.Split(id, "\x00")
	last := parts[len(parts)-1]
	if last == "" {
		last = "(none)"
	}
	return last
}

// SetHits shows the hits of a team search (none hides the list).
func (b *TeamBrowser) SetHits(hits []TeamHit) {
	b.hitRows = hits
	if len(hits) == 0 {
		b.hits.Hide()
	} else {
		b.hits.Show()
	}
	b.hits.UnselectAll()
	b.hits.Refresh()
}

// ShowSession shows a team session's transcript.
func (b *TeamBrowser) ShowSession(s store.Session, events []store.StoredEvent, compactions []store.Compaction) {
	b.transcript.SetSession(s, events, compactions)
}

// readOnly is the Actions of a transcript nobody can change; its links
// open through open (nil: nowhere).
type readOnly struct{ open func(raw string) }

// OpenLink opens a link of the transcript.
func (r readOnly) OpenLink(raw string) {
	if r.open != nil {
		r.open(raw)
	}
}

func (readOnly) SendPrompt(PromptRequest)         {}
func (readOnly) StopRun(SessionRef)               {}
func (readOnly) SwitchModel(SessionRef, string)   {}
func (readOnly) SaveAgentSettings(AgentSettings)  {}
func (readOnly) SelectSession(SessionRef)         {}
func (readOnly) NewSession(string, string)        {}
func (readOnly) RenameSession(SessionRef, string) {}
func (readOnly) DeleteSession(SessionRef)         {}
func (readOnly) LoadEarlier(SessionRef, bool)     {}
func (readOnly) OpenSubagent(SessionRef, string)  {}
func (readOnly) OpenParent(SessionRef)            {}
func (readOnly) LoadFileDiffs(InsightFile)        {}
func (readOnly) OpenRef(RefChip)                  {}
func (readOnly) EditPermissions(SessionRef)       {}
