package teamsync

// This file holds the session rows of a push and the value conversions
// the event, compaction and session rows share.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/store"
)

var sessionColumns = []string{"store_id", "session_id", "created", "created_day", "name", "worktree", "repository",
	"machine", "username", "completed", "duration_ms", "cost_usd", "last_claude_uuid", "event_count", "message_count",
	"chars_since_compaction", "last_event_id", "turns", "input_tokens", "output_tokens", "cache_read_tokens",
	"cache_write_tokens", "reasoning_tokens", "usage_cost_usd", "cost_estimated", "row_hash"}

type sessionKey struct {
	id      int64
	created string
}

// pushSessions writes every session row that is new or changed (by a hash
// of what is sent), with its files and refs, in one transaction.
func (p *pusher) pushSessions(ctx context.Context) error {
	list, err := p.st.Sessions().List(ctx, "")
	if err != nil {
		return err
	}
	have := map[sessionKey][]byte{}
	rows, err := p.db.conn.Query(ctx, `SELECT session_id, created, row_hash FROM lazuli_sessions WHERE store_id = $1`, p.id)
	if err != nil {
		return p.db.wrap("read pushed sessions", err)
	}
	for rows.Next() {
		var k sessionKey
		var h []byte
		if err := rows.Scan(&k.id, &k.created, &h); err != nil {
			rows.Close()
			return p.db.wrap("read pushed sessions", err)
		}
		have[k] = h
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return p.db.wrap("read pushed sessions", err)
	}
	var ins map[int64]SessionInsight
	if p.opt.Insight != nil {
		if ins, err = p.opt.Insight.StoreInsight(ctx, p.st); err != nil {
			return fmt.Errorf("insight of %s: %w", p.st.Path(), err)
		}
	}
	var out, files, refs, usage [][]any
	var keys []sessionKey
	for _, s := range list {
		row, sessFiles, sessRefs, sessUsage := p.sessionRow(s, ins[s.ID])
		k := sessionKey{s.ID, s.Created}
		if bytes.Equal(have[k], row[len(row)-1].([]byte)) {
			continue
		}
		out = append(out, row)
		files = append(files, sessFiles...)
		refs = append(refs, sessRefs...)
		usage = append(usage, sessUsage...)
		keys = append(keys, k)
	}
	if len(out) == 0 {
		return nil
	}
	err = inTx(ctx, p.db.conn, func(tx pgx.Tx) error {
		cols := strings.Join(sessionColumns, ", ")
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS tmp_lazuli_sessions ON COMMIT DELETE ROWS
			AS SELECT `+cols+` FROM lazuli_sessions WITH NO DATA`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tmp_lazuli_sessions"}, sessionColumns, pgx.CopyFromRows(out)); err != nil {
			return err
		}
		var set []string
		for _, c := range sessionColumns[3:] {
			set = append(set, c+" = EXCLUDED."+c)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO lazuli_sessions (`+cols+`) SELECT `+cols+` FROM tmp_lazuli_sessions
			ON CONFLICT (store_id, session_id, created) DO UPDATE SET `+strings.Join(set, ", ")+`, pushed_at = now()`); err != nil {
			return err
		}
		// Without the insight index, a session's turns are its completions.
		if _, err := tx.Exec(ctx, `UPDATE lazuli_sessions s SET turns = (SELECT count(*) FROM lazuli_events e
				WHERE e.store_id = s.store_id AND e.session_id = s.session_id AND e.session_created = s.created
				AND e.kind = 'Complete')
			FROM tmp_lazuli_sessions t WHERE s.store_id = t.store_id AND s.session_id = t.session_id
				AND s.created = t.created AND t.input_tokens IS NULL`); err != nil {
			return err
		}
		if p.opt.Insight != nil {
			if err := replaceInsight(ctx, tx, p.id, keys, files, refs, usage); err != nil {
				return err
			}
		}
		return p.hook("sessions-copied")
	})
	if err != nil {
		return p.db.wrap("send sessions", err)
	}
	p.rep.Sessions = len(out)
	return nil
}

var usageColumns = []string{"store_id", "session_id", "session_created", "turn", "day", "model", "backend",
	"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "cost_usd", "cost_estimated"}

// replaceInsight replaces the files, refs and usage of the sessions keys.
func replaceInsight(ctx context.Context, tx pgx.Tx, storeID string, keys []sessionKey, files, refs, usage [][]any) error {
	ids := make([]int64, len(keys))
	created := make([]string, len(keys))
	for i, k := range keys {
		ids[i], created[i] = k.id, k.created
	}
	for _, t := range []string{"lazuli_files", "lazuli_refs", "lazuli_usage"} {
		if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE store_id = $1 AND (session_id, session_created) IN
			(SELECT * FROM unnest($2::bigint[], $3::text[]))`, storeID, ids, created); err != nil {
			return err
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"lazuli_files"}, []string{"store_id", "session_id", "session_created",
		"path", "action", "count", "first_seq", "last_seq"}, pgx.CopyFromRows(files)); err != nil {
		return err
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"lazuli_refs"}, []string{"store_id", "session_id", "session_created",
		"kind", "value", "first_seq"}, pgx.CopyFromRows(refs)); err != nil {
		return err
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"lazuli_usage"}, usageColumns, pgx.CopyFromRows(usage))
	return err
}

// sessionRow returns the row of s (its name, worktree and Claude id
// redacted unless secrets are allowed), with its files, refs and usage
// rows from in; the row's last value is its hash.
func (p *pusher) sessionRow(s store.Session, in SessionInsight) (row []any, files, refs, usage [][]any) {
	if !p.opt.AllowSecrets {
		src := export.Source{Session: s}
		if rep := export.Scan(src); len(rep.Findings) > 0 {
			s = export.Redact(src, rep).Session
			for _, f := range rep.Findings {
				for _, l := range f.Locations {
					p.rep.Redactions = append(p.rep.Redactions, Redaction{SessionID: s.ID, Field: l.Field, Rule: f.Rule, Preview: f.Preview})
				}
			}
		}
	}
	var day any
	if t, err := time.Parse(time.DateTime, s.Created); err == nil {
		day = t
	}
	row = []any{p.id, s.ID, s.Created, day, textSafe(s.Name), textSafe(s.Worktree), p.opt.Repository,
		p.opt.Machine, p.opt.User, s.Completed, s.DurationMS, finite(s.CostUSD), textSafe(s.LastClaudeUUID),
		s.EventCount, s.MessageCount, s.CharsSinceCompaction, s.LastEventID}
	if u := in.Usage; u != nil {
		row = append(row, u.Turns, u.Input, u.Output, u.CacheRead, u.CacheWrite,
			u.Reasoning, u.CostUSD, u.CostEstimated)
	} else {
		row = append(row, int64(0), nil, nil, nil, nil, nil, nil, false)
	}
	h := sha256.New()
	for _, v := range row {
		fmt.Fprintf(h, "%v\x00", deref(v))
	}
	for _, f := range in.Files {
		files = append(files, []any{p.id, s.ID, s.Created, textSafe(f.Path), f.Action, f.Count, f.FirstSeq, f.LastSeq})
		fmt.Fprintf(h, "F%s\x00%s\x00%d\x00%d\x00%d\x00", f.Path, f.Action, f.Count, f.FirstSeq, f.LastSeq)
	}
	for _, r := range in.Refs {
		refs = append(refs, []any{p.id, s.ID, s.Created, r.Kind, textSafe(r.Value), r.FirstSeq})
		fmt.Fprintf(h, "R%s\x00%s\x00%d\x00", r.Kind, r.Value, r.FirstSeq)
	}
	for _, u := range in.Turns {
		var day any
		if t, err := time.Parse(time.DateOnly, u.Day); err == nil {
			day = t
		}
		cost := u.CostUSD
		if math.IsNaN(cost) || math.IsInf(cost, 0) {
			cost = 0
		}
		usage = append(usage, []any{p.id, s.ID, s.Created, u.Turn, day, textSafe(u.Model), textSafe(u.Backend), u.Input,
			u.Output, u.CacheRead, u.CacheWrite, u.Reasoning, cost, u.CostEstimated})
		fmt.Fprintf(h, "U%d\x00%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%d\x00%d\x00%v\x00%v\x00", u.Turn, u.Day, u.Model, u.Backend,
			u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning, cost, u.CostEstimated)
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], SchemaVersion)
	h.Write(n[:])
	return append(row, h.Sum(nil)), files, refs, usage
}

// deref formats pointers by their values for the row hash.
func deref(v any) any {
	switch x := v.(type) {
	case *bool:
		if x != nil {
			return *x
		}
	case *int64:
		if x != nil {
			return *x
		}
	case *float64:
		if x != nil {
			return *x
		}
	default:
		return v
	}
	return "<nil>"
}

// finite drops a cost that PostgreSQL could take but JSON could not show.
func finite(f *float64) *float64 {
	if f == nil || math.IsNaN(*f) || math.IsInf(*f, 0) {
		return nil
	}
	return f
}

// textSafe makes s storable as PostgreSQL text: valid UTF-8 without NUL.
func textSafe(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// jsonbSafe rewrites the \u0000 escapes jsonb refuses as \ufffd; the
// payload column keeps the event as it is.
func jsonbSafe(js []byte) []byte {
	if !bytes.Contains(js, []byte(`\u0000`)) {
		return js
	}
	out := make([]byte, 0, len(js))
	for i := 0; i < len(js); i++ {
		if js[i] != '\\' || i+1 >= len(js) {
			out = append(out, js[i])
			continue
		}
		if js[i+1] == 'u' && i+6 <= len(js) && string(js[i+2:i+6]) == "0000" {
			out = append(out, `\ufffd`...)
			i += 5
			continue
		}
		out = append(out, js[i], js[i+1])
		i++
	}
	return out
}
