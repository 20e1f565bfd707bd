package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"runtime"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// DB is OpenCode's database, open read-only. It is read as SQLite reads
// it, the -wal file included (OpenCode leaves most rows there), and never
// written: mode=ro and query_only.
type DB struct {
	db   *sql.DB
	path string
}

// OpenDB opens the OpenCode database at path read-only. It fails when
// the file is missing or is not OpenCode's database (no session table).
func OpenDB(ctx context.Context, path string) (*DB, error) {
	q := url.Values{"mode": {"ro"}, "_pragma": {"query_only(1)", "busy_timeout(5000)"}}
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String())
	if err != nil {
		return nil, fmt.Errorf("open opencode database %s: %w", path, err)
	}
	// A connection per core: the import mirrors sessions in parallel.
	db.SetMaxOpenConns(runtime.GOMAXPROCS(0))
	db.SetMaxIdleConns(runtime.GOMAXPROCS(0))
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')").Scan(&n); err != nil {
		db.Close()
		return nil, fmt.Errorf("open opencode database %s: %w", path, err)
	}
	if n != 3 {
		db.Close()
		return nil, fmt.Errorf("open opencode database %s: not an OpenCode database (no session, message and part tables)", path)
	}
	return &DB{db: db, path: path}, nil
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Session is one row of OpenCode's session table.
type Session struct {
	ID        string
	ParentID  string // the session whose task tool started it; "" for a top-level session
	Directory string // the working folder
	Title     string
	Created   int64 // Unix milliseconds
	Updated   int64 // Unix milliseconds; grows with every message
}

// Sessions lists the sessions, oldest first.
func (d *DB) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, COALESCE(parent_id, ''), directory, title, time_created, time_updated
FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, fmt.Errorf("list opencode sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var s Session
		if err := rows.Scan(&s.ID, &s.ParentID, &s.Directory, &s.Title, &s.Created, &s.Updated); err != nil {
			return nil, fmt.Errorf("list opencode sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Lines returns a session as the lines the Parser reads: the session
// line, then one line per message with its parts, in the order OpenCode
// shows them (time created, then id).
func (d *DB) Lines(ctx context.Context, s Session) ([][]byte, error) {
	head, err := marshal(map[string]any{"type": LineSession, "id": s.ID, "parentID": s.ParentID,
		"directory": s.Directory, "title": s.Title, "time": map[string]int64{"created": s.Created, "updated": s.Updated}})
	if err != nil {
		return nil, err
	}
	out := [][]byte{head}
	parts, err := d.parts(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	rows, err := d.db.QueryContext(ctx, `SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id`, s.ID)
	if err != nil {
		return nil, fmt.Errorf("read opencode session %s: %w", s.ID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return nil, fmt.Errorf("read opencode session %s: %w", s.ID, err)
		}
		out = append(out, messageLine(id, compacted(data), parts[id]))
	}
	return out, rows.Err()
}

// parts reads a session's parts by message, each in id order, compacted.
func (d *DB) parts(ctx context.Context, sessionID string) (map[string][]json.RawMessage, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read opencode parts of %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := map[string][]json.RawMessage{}
	for rows.Next() {
		var msg string
		var data []byte
		if err := rows.Scan(&msg, &data); err != nil {
			return nil, fmt.Errorf("read opencode parts of %s: %w", sessionID, err)
		}
		out[msg] = append(out[msg], compacted(data))
	}
	return out, rows.Err()
}

// The line types DB.Lines writes.
const (
	LineSession = "opencode.session"
	LineMessage = "opencode.message"
)

// compacted returns a row's JSON as encoding/json writes a RawMessage
// (white space between tokens dropped), or null when the row holds no
// valid JSON (the parser then skips what it cannot read, rather than
// failing the line). It reads data once, where validating and then
// marshalling read it twice.
func compacted(data []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return json.RawMessage("null")
	}
	if b.Len() == len(data) {
		return data // already compact: Scan gave us our own copy
	}
	return b.Bytes()
}

// messageLine is one message line, {"type", "id", "info", "parts"}, as
// marshal writes the struct of those four fields (nil parts are null),
// from values compacted already.
func messageLine(id string, info json.RawMessage, parts []json.RawMessage) []byte {
	n := 64 + len(id) + len(info)
	for _, p := range parts {
		n += len(p) + 1
	}
	b := append(make([]byte, 0, n), `{"type":"`+LineMessage+`","id":`...)
	if plainString(id) {
		b = append(append(append(b, '"'), id...), '"')
	} else {
		q, _ := marshal(id) // a string always marshals
		b = append(b, q...)
	}
	b = append(append(b, `,"info":`...), info...)
	b = append(b, `,"parts":`...)
	if parts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range parts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, p...)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// plainString reports whether encoding/json writes s between quotes as
// it is: printable ASCII without a quote or a backslash.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// marshal is json.Marshal without HTML escaping, so the rows' text comes
// through as OpenCode wrote it.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
