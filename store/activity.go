package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
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
// the table they need; each yields (session_id, time in TimeFormat).
var activitySources = []struct{ table, query string }{
	{"compactions", `SELECT session_id, MAX(created) FROM compactions GROUP BY session_id`},
	{UsageTable, `SELECT u.session_id, MAX(u.at) FROM lazuli_usage u JOIN sessions s ON s.id = u.session_id AND s.created = u.session_created
		WHERE u.at != '' GROUP BY u.session_id`},
	{RunFailureTable, `SELECT f.session_id, MAX(f.at) ` + liveRunFailures + ` GROUP BY f.session_id`},
	{NativeTable, `SELECT n.session_id, strftime('%Y-%m-%d %H:%M:%S', MAX(n.file_mtime) / 1000000000, 'unixepoch')
		FROM lazuli_native_imports n JOIN sessions s ON s.id = n.session_id AND s.created = n.session_created
		WHERE n.file_mtime > 0 GROUP BY n.session_id`},
}

// addActivity sets the LastActive and Interrupted of list's sessions.
func (s *Store) addActivity(ctx context.Context, q querier, info *schemaInfo, list []Session) error {
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
		if err := scanActivity(ctx, q, src.query, byID); err != nil {
			return fmt.Errorf("read last activity from %s: %w", src.table, err)
		}
	}
	if !info.hasColumn("sessions", "completed") {
		return nil
	}
	return s.markInterrupted(ctx, q, byID)
}

// scanActivity raises LastActive to the times query yields.
func scanActivity(ctx context.Context, q querier, query string, byID map[int64]*Session) error {
	rows, err := q.QueryContext(ctx, query)
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

// markInterrupted sets Interrupted for the sessions whose last turn was
// stopped before it finished: a failed session (completed = 0) whose last
// two events are a TurnAbortedText notice and the failed Complete. Only
// failed sessions are read, two events each, through the index.
func (s *Store) markInterrupted(ctx context.Context, q querier, byID map[int64]*Session) error {
	query := `SELECT s.id, e.seq, e.kind, e.data FROM sessions s JOIN events e ON e.id IN
		(SELECT id FROM events AS x INDEXED BY idx_events_session WHERE x.session_id = s.id ORDER BY x.seq DESC LIMIT 2)
		WHERE s.completed = 0`
	var args []any
	if len(byID) == 1 { // GetSession
		for id := range byID {
			query, args = query+" AND s.id = ?", append(args, id)
		}
	}
	rows, err := q.QueryContext(ctx, query+" ORDER BY s.id, e.seq", args...)
	if err != nil {
		return fmt.Errorf("read the last turns of failed sessions: %w", err)
	}
	defer rows.Close()
	type tail struct {
		kinds [2]Kind
		data  [2][]byte
		n     int
	}
	tails := map[int64]*tail{}
	for rows.Next() {
		var id, seq int64
		var kind string
		var data []byte
		if err := rows.Scan(&id, &seq, &kind, &data); err != nil {
			return err
		}
		t := tails[id]
		if t == nil {
			t = &tail{}
			tails[id] = t
		}
		if t.n < 2 {
			t.kinds[t.n], t.data[t.n] = Kind(kind), data
			t.n++
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var arena jsonArena
	for id, t := range tails {
		sess := byID[id]
		if sess == nil || t.n != 2 || t.kinds[0] != KindAssistantText || t.kinds[1] != KindComplete {
			continue
		}
		if e, ok := s.decodePayloadInto(t.data[0], &arena); ok {
			_, sess.Interrupted = TurnAborted(e)
		}
	}
	return nil
}

// TurnAbortedText is the notice stored as AssistantText before the failed
// Complete of a turn that was stopped before it finished (a Codex
// rollout's turn_aborted, reason "interrupted" when the user pressed Esc).
func TurnAbortedText(reason string) string { return "Turn " + reason }

var turnAbortedPattern = regexp.MustCompile(`^Turn [a-z_]+$`)

// TurnAborted reports whether e is a TurnAbortedText notice, and its
// reason.
func TurnAborted(e Event) (reason string, ok bool) {
	if e.Kind != KindAssistantText || !turnAbortedPattern.MatchString(e.Text) {
		return "", false
	}
	return strings.TrimPrefix(e.Text, "Turn "), true
}
