package store

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/lazuli-app/lazuli/codec"
)

// maxUnreadNoted bounds the unreadable rows a Store remembers; more are
// counted.
const maxUnreadNoted = 1000

// unreadLog is what a Store remembers of the unreadable rows its loads
// left out, each once.
type unreadLog struct {
	mu    sync.Mutex
	rows  []Unreadable
	seen  map[[2]int64]bool
	extra int // rows not kept, past maxUnreadNoted
}

// note adds rows not noted before.
func (l *unreadLog) note(rows []Unreadable) {
	if len(rows) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[[2]int64]bool{}
	}
	for _, u := range rows {
		key := [2]int64{u.Session, u.Seq}
		if l.seen[key] {
			continue
		}
		if len(l.rows) >= maxUnreadNoted {
			l.extra++
			continue
		}
		l.seen[key] = true
		l.rows = append(l.rows, u)
	}
}

// UnreadableNotice says in one line which events could not be read and
// were left out, as a command reports them: "S1: 1 event could not be
// read and is left out (#2: it decodes to more than 64 MiB)". It is ""
// without rows.
func UnreadableNotice(rows []Unreadable, more int) string {
	n := len(rows) + more
	if n == 0 {
		return ""
	}
	const maxListed = 5
	var b strings.Builder
	sessions := map[int64]bool{}
	for _, u := range rows {
		sessions[u.Session] = true
	}
	if len(sessions) == 1 && more == 0 {
		fmt.Fprintf(&b, "S%d: ", rows[0].Session)
	}
	if n == 1 {
		b.WriteString("1 event could not be read and is left out (")
	} else {
		fmt.Fprintf(&b, "%d events could not be read and are left out (", n)
	}
	for i, u := range rows {
		if i == maxListed {
			fmt.Fprintf(&b, ", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if len(sessions) > 1 || more > 0 {
			fmt.Fprintf(&b, "S%d ", u.Session)
		}
		b.WriteString("#" + strconv.FormatInt(u.Seq, 10))
		if u.TooLarge {
			fmt.Fprintf(&b, ": it decodes to more than %d MiB", codec.MaxEventSize>>20)
		}
	}
	b.WriteString(")")
	return b.String()
}

// tooLargeText is a KindUnreadable placeholder's Text when its row decodes
// to more than MaxEventSize.
var tooLargeText = fmt.Sprintf("it decodes to more than %d MiB", codec.MaxEventSize>>20)

// WithUnreadable returns events with a KindUnreadable placeholder at the
// seq of each row in rows, in seq order (both must be in seq order), for
// a view that shows where events could not be read. events is not
// changed; without rows it is returned as it is.
func WithUnreadable(events []StoredEvent, rows []Unreadable) []StoredEvent {
	if len(rows) == 0 {
		return events
	}
	out := make([]StoredEvent, 0, len(events)+len(rows))
	i := 0
	for _, u := range rows {
		for i < len(events) && events[i].Seq < u.Seq {
			out = append(out, events[i])
			i++
		}
		p := StoredEvent{Seq: u.Seq, Kind: codec.KindUnreadable, Event: codec.Event{Kind: codec.KindUnreadable}}
		if u.TooLarge {
			p.Event.Text = tooLargeText
		}
		out = append(out, p)
	}
	return append(out, events[i:]...)
}
