package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/codec"
)

// AZUREAL's events carry no time, and sessions only their created time,
// while the list is ordered by the last event written. What a session's
// last activity was is pieced together from the times the file does keep:
// its created time, its turns' usage rows (lazuli_usage.at: when the turn
// ended), its compactions' created time, its runs' failures
// (lazuli_run_failures.at) and, for a session imported from native
// history, the modification time of the native file (what a later sync
// appended). Rows of Lazuli's tables whose session is gone or replaced
// under a reused id do not count.

// activitySources are the queries giving each session's latest time, by
// the table they need; each yields (session_id, time in TimeFormat). col
// is the session id column a query for one session filters on: it goes
// in place of %s, before GROUP BY.
var activitySources = []struct{ table, query, col string }{
	{"compactions", `SELECT session_id, MAX(created) FROM compactions WHERE 1 %s GROUP BY session_id`, "session_id"},
	{UsageTable, `SELECT u.session_id, MAX(u.at) FROM lazuli_usage u JOIN sessions s ON s.id = u.session_id AND s.created = u.session_created
		WHERE u.at != '' %s GROUP BY u.session_id`, "u.session_id"},
	{RunFailureTable, `SELECT f.session_id, MAX(f.at) ` + liveRunFailures + ` WHERE 1 %s GROUP BY f.session_id`, "f.session_id"},
	{NativeTable, `SELECT n.session_id, strftime('%%Y-%%m-%%d %%H:%%M:%%S', MAX(n.file_mtime) / 1000000000, 'unixepoch')
		FROM lazuli_native_imports n JOIN sessions s ON s.id = n.session_id AND s.created = n.session_created
		WHERE n.file_mtime > 0 %s GROUP BY n.session_id`, "n.session_id"},
}

// addActivity sets the LastActive of list's sessions and settles their
// status (settleStatus).
func (ss SessionService) addActivity(ctx context.Context, q querier, info *schemaInfo, list []Session) error {
	if len(list) == 0 {
		return nil
	}
	byID := make(map[int64]*Session, len(list))
	for i := range list {
		list[i].LastActive = list[i].Created
		byID[list[i].ID] = &list[i]
	}
	for _, src := range activitySources {
		if ok, err := hasTable(ctx, q, src.table); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		// One session (Get) reads its own rows only: the whole table was
		// nearly all of a `lazuli show` of a store with 60,000 usage rows.
		query, args := fmt.Sprintf(src.query, ""), []any(nil)
		if len(list) == 1 {
			query, args = fmt.Sprintf(src.query, "AND "+src.col+" = ?"), []any{list[0].ID}
		}
		if err := scanActivity(ctx, q, query, args, byID); err != nil {
			return fmt.Errorf("read last activity from %s: %w", src.table, err)
		}
	}
	if !info.hasColumn("sessions", "completed") {
		return nil
	}
	return ss.settleStatus(ctx, q, byID)
}

// scanActivity raises LastActive to the times query yields.
func scanActivity(ctx context.Context, q querier, query string, args []any, byID map[int64]*Session) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var at *string
		if err := rows.Scan(&id, &at); err != nil {
			return err
		}
		if s := byID[id]; s != nil && at != nil && validTime(*at) && *at > s.LastActive {
			s.LastActive = *at
		}
	}
	return rows.Err()
}

// validTime reports whether s is a time in TimeFormat (a foreign program
// may have written anything into a created column).
func validTime(s string) bool {
	_, err := time.Parse(TimeFormat, s)
	return err == nil
}

// settleStatus makes the status of list's sessions say how their last
// turn ended. The sessions columns completed and duration_ms hold the last
// Complete written, but a turn that stores no Complete (a Codex rollout
// without task_complete stores one only for its interrupted turns) leaves
// them describing an earlier turn: when a UserMessage follows the last
// Complete, the session is Unfinished (the columns stay as stored: AZUREAL
// lists them, and copies keep them). A failed session whose last Complete
// follows a TurnAbortedText notice is Interrupted. Only sessions with a
// status are read, a few events each, from the end through the index.
func (ss SessionService) settleStatus(ctx context.Context, q querier, byID map[int64]*Session) error {
	query := `SELECT s.id, s.completed, l.kind, l.seq, (SELECT p.data FROM events AS p INDEXED BY idx_events_session
			WHERE p.session_id = s.id AND p.seq < l.seq ORDER BY p.seq DESC LIMIT 1)
		FROM sessions s JOIN events l ON l.id = (SELECT x.id FROM events AS x INDEXED BY idx_events_session
			WHERE x.session_id = s.id AND x.kind IN ('UserMessage', 'Complete') ORDER BY x.seq DESC LIMIT 1)
		WHERE s.completed IS NOT NULL`
	var args []any
	if len(byID) == 1 { // GetSession
		for id := range byID {
			query, args = query+" AND s.id = ?", append(args, id)
		}
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("read the last turns of finished sessions: %w", err)
	}
	defer rows.Close()
	var arena codec.Arena
	for rows.Next() {
		var id, completed, seq int64
		var kind string
		var before []byte
		if err := rows.Scan(&id, &completed, &kind, &seq, &before); err != nil {
			return err
		}
		sess := byID[id]
		switch {
		case sess == nil:
		case codec.Kind(kind) == codec.KindUserMessage: // a turn began after the last Complete
			sess.Unfinished = true
		case completed == 0 && before != nil:
			if e, ok := ss.s.decodePayloadInto(before, &arena); ok {
				_, sess.Interrupted = TurnAborted(e)
			}
		}
	}
	return rows.Err()
}

// TurnAbortedText is the notice stored as AssistantText before the failed
// Complete of a turn that was stopped before it finished (a Codex
// rollout's turn_aborted, reason "interrupted" when the user pressed Esc).
func TurnAbortedText(reason string) string { return "Turn " + reason }

var turnAbortedPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Turn [a-z_]+$`) })

// TurnAborted reports whether e is a TurnAbortedText notice, and its
// reason.
func TurnAborted(e codec.Event) (reason string, ok bool) {
	if e.Kind != codec.KindAssistantText || !turnAbortedPattern().MatchString(e.Text) {
		return "", false
	}
	return strings.TrimPrefix(e.Text, "Turn "), true
}
