// Package scale measures Lazuli on a large generated store (see
// internal/genstore) beside AZUREAL's way of doing the same work, in one
// run: opening and listing the sessions, loading the biggest session,
// searching, building the search index, and the memory a process with the
// store open uses. The benchmarks are in the package's tests; they need a
// store (-scale.store PATH or $LAZULI_SCALE_STORE) and skip without one.
// scripts/bench-scale.sh generates the store and runs them all.
//
// This file holds the baselines: AZUREAL's own queries and decoding,
// written in Go the way AZUREAL's Rust code does them (src/app/session_store.rs).
package scale

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// ListQuery is AZUREAL's list_sessions query for all worktrees: each
// session with its event count, message count and completion, most recent
// activity first (spec §1.6). AZUREAL runs it every time it lists.
const ListQuery = `SELECT s.id, s.name, s.worktree, s.created,
    COALESCE(e.cnt, 0), COALESCE(m.cnt, 0),
    s.completed, s.duration_ms, s.cost_usd
 FROM sessions s
 LEFT JOIN (SELECT session_id, COUNT(*) as cnt FROM events GROUP BY session_id) e
    ON e.session_id = s.id
 LEFT JOIN (SELECT session_id, COUNT(*) as cnt FROM events
    WHERE kind IN ('UserMessage','AssistantText') GROUP BY session_id) m
    ON m.session_id = s.id
 LEFT JOIN (SELECT session_id, MAX(id) as max_eid FROM events GROUP BY session_id) latest
    ON latest.session_id = s.id
 ORDER BY COALESCE(latest.max_eid, 0) DESC, s.id DESC;`

// OpenBaseline opens path read-only with the plain modernc SQLite driver,
// with none of Lazuli's settings, as the baselines read it.
func OpenBaseline(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// decompressAZUREAL is AZUREAL's decompress_data: zstd::decode_all with a
// new decoder for every payload, then a UTF-8 check ("" when either fails).
func decompressAZUREAL(blob []byte) string {
	d, err := zstd.NewReader(bytes.NewReader(blob), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return ""
	}
	defer d.Close()
	out, err := io.ReadAll(d)
	if err != nil || !utf8.Valid(out) {
		return ""
	}
	return string(out)
}

// LoadAZUREAL is AZUREAL's load_events: read every payload of the session
// in seq order, then decompress each one with a new decoder and parse its
// JSON (here into a generic value), dropping rows that fail. It returns the
// number of events decoded.
func LoadAZUREAL(ctx context.Context, db *sql.DB, sessionID int64) (int, error) {
	rows, err := db.QueryContext(ctx, "SELECT data FROM events WHERE session_id = ?1 ORDER BY seq", sessionID)
	if err != nil {
		return 0, err
	}
	var blobs [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return 0, err
		}
		blobs = append(blobs, b)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	events := make([]any, 0, len(blobs))
	for _, b := range blobs {
		var v any
		if json.Unmarshal([]byte(decompressAZUREAL(b)), &v) == nil {
			events = append(events, v)
		}
	}
	return len(events), nil
}

// SearchAZUREAL is AZUREAL's search_events over all worktrees: read the
// payload of every prompt and reply in session and seq order, then
// decompress each one (a new decoder each time), lower-case its JSON text
// and look for the lower-cased query in it, until limit hits. It returns
// the number of hits.
func SearchAZUREAL(ctx context.Context, db *sql.DB, query string, limit int) (int, error) {
	rows, err := db.QueryContext(ctx, `SELECT e.session_id, e.data FROM events e
		WHERE e.kind IN ('UserMessage','AssistantText') ORDER BY e.session_id, e.seq`)
	if err != nil {
		return 0, err
	}
	type row struct {
		session int64
		data    []byte
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.session, &r.data); err != nil {
			rows.Close()
			return 0, err
		}
		all = append(all, r)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	q := strings.ToLower(query)
	hits := 0
	for _, r := range all {
		if hits >= limit {
			break
		}
		if strings.Contains(strings.ToLower(decompressAZUREAL(r.data)), q) {
			hits++
		}
	}
	return hits, nil
}
