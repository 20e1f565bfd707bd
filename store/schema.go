package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// SchemaVersion is the schema_version Lazuli writes: AZUREAL's current one.
const SchemaVersion = "3"

// schemaStatements is AZUREAL's schema script (spec §1.3), byte for byte:
// SQLite keeps the CREATE text in sqlite_master, and AZUREAL's files must
// look the same whoever created them.
var schemaStatements = []string{
	`CREATE TABLE IF NOT EXISTS sessions (
    id               INTEGER PRIMARY KEY,
    name             TEXT NOT NULL DEFAULT '',
    worktree         TEXT NOT NULL DEFAULT '',
    created          TEXT NOT NULL DEFAULT (datetime('now')),
    completed        INTEGER,
    duration_ms      INTEGER,
    cost_usd         REAL,
    last_claude_uuid TEXT NOT NULL DEFAULT ''
)`,
	`CREATE TABLE IF NOT EXISTS events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    data       TEXT NOT NULL,
    char_len   INTEGER NOT NULL DEFAULT 0,
    UNIQUE(session_id, seq)
)`,
	`CREATE INDEX IF NOT EXISTS idx_events_session ON events(session_id, seq)`,
	`CREATE TABLE IF NOT EXISTS compactions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    after_seq  INTEGER NOT NULL,
    summary    TEXT NOT NULL,
    created    TEXT NOT NULL DEFAULT (datetime('now'))
)`,
	`CREATE INDEX IF NOT EXISTS idx_compactions_session ON compactions(session_id)`,
	`CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
)`,
	`INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', '3')`,
}

// legacyColumns are the v2 usage columns AZUREAL's migration drops.
var legacyColumns = []string{"context_tokens", "output_tokens", "context_window"}

// requiredColumns are the columns Lazuli cannot read a store without. The
// sessions completion columns and last_claude_uuid are optional (v1 files
// lack them; they read as NULL and ”); compactions and meta are optional
// tables, but need these columns when present.
var requiredColumns = map[string][]string{
	"sessions":    {"id", "name", "worktree", "created"},
	"events":      {"id", "session_id", "seq", "kind", "data", "char_len"},
	"compactions": {"id", "session_id", "after_seq", "summary", "created"},
	"meta":        {"key", "value"},
}

// schemaInfo is what inspect found in a file.
type schemaInfo struct {
	tables  map[string]map[string]bool // table → columns
	version string                     // meta schema_version; "" when absent
	objects []schemaObject             // rows of sqlite_master: tables, indexes, …
}

func (i *schemaInfo) hasTable(t string) bool { return i.tables[t] != nil }

func (i *schemaInfo) hasColumn(t, c string) bool { return i.tables[t][c] }

// empty reports a database with no tables at all: a new file.
func (i *schemaInfo) empty() bool { return len(i.objects) == 0 }

// versionNumber returns schema_version as a number; 0 when absent, -1 when
// it is not a number.
func (i *schemaInfo) versionNumber() int {
	if i.version == "" {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(i.version))
	if err != nil {
		return -1
	}
	return n
}

// writeBlocker returns why Lazuli must not write to this file, or "".
func (i *schemaInfo) writeBlocker() string {
	switch n := i.versionNumber(); {
	case n > 3:
		return fmt.Sprintf("its schema_version %s is newer than %s; a newer program wrote it, and writing would downgrade it", i.version, SchemaVersion)
	case n < 0:
		return fmt.Sprintf("its schema_version %q is not a number", i.version)
	}
	if i.hasTable("sessions") && !i.hasColumn("sessions", "completed") {
		return "it is a legacy v1 store (no completion columns, plain-JSON payloads) that AZUREAL cannot use either; Lazuli only reads it"
	}
	return foreignBlocker(i.objects)
}

// effectiveVersion is the schema_version AZUREAL would report after opening
// the file: its migration forces "3" on any file it can open. A newer
// version is reported as is, because Lazuli never downgrades it.
func (i *schemaInfo) effectiveVersion() string {
	if n := i.versionNumber(); n > 3 || n < 0 {
		return i.version
	}
	return SchemaVersion
}

// inspect validates an attached file's schema and returns it.
func inspect(ctx context.Context, q querier, path string) (*schemaInfo, error) {
	info, err := readSchema(ctx, q)
	if err != nil {
		return nil, formatOrErr(path, err)
	}
	if info.empty() {
		return info, nil
	}
	for _, f := range foreignObjects(info.objects) {
		if f.replaces {
			return nil, &FormatError{Path: path, Reason: f.reason}
		}
	}
	for _, t := range []string{"sessions", "events", "compactions", "meta"} {
		if !info.hasTable(t) {
			if t == "sessions" || t == "events" {
				return nil, &FormatError{Path: path, Reason: "it has no " + t + " table (is it another program's SQLite file?)"}
			}
			continue
		}
		for _, c := range requiredColumns[t] {
			if !info.hasColumn(t, c) {
				return nil, &FormatError{Path: path, Reason: fmt.Sprintf("table %s has no column %s", t, c)}
			}
		}
	}
	return info, nil
}

// quickCheck runs PRAGMA quick_check and turns a failure into a FormatError.
func quickCheck(ctx context.Context, q querier, path string) error {
	msgs, err := quickCheckMessages(ctx, q, 3)
	if err != nil {
		return formatOrErr(path, err)
	}
	if len(msgs) != 1 || msgs[0] != "ok" {
		return &FormatError{Path: path, Reason: "the file is damaged (quick_check: " + strings.Join(msgs, "; ") + ")"}
	}
	return nil
}

// quickCheckMessages returns up to limit lines of PRAGMA quick_check.
func quickCheckMessages(ctx context.Context, q querier, limit int) ([]string, error) {
	rows, err := q.QueryContext(ctx, "PRAGMA quick_check("+strconv.Itoa(limit)+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}

// readSchema lists the store's tables, their columns and schema_version.
func readSchema(ctx context.Context, q querier) (*schemaInfo, error) {
	info := &schemaInfo{tables: map[string]map[string]bool{}}
	var err error
	if info.objects, err = schemaObjects(ctx, q, ""); err != nil {
		return nil, err
	}
	for t := range requiredColumns {
		cols, err := tableColumns(ctx, q, t)
		if err != nil {
			return nil, err
		}
		if len(cols) > 0 {
			info.tables[t] = cols
		}
	}
	if info.hasColumn("meta", "key") && info.hasColumn("meta", "value") {
		var v sql.NullString
		err := q.QueryRowContext(ctx, `SELECT CAST(value AS TEXT) FROM meta WHERE key = 'schema_version'`).Scan(&v)
		if err != nil && err != sql.ErrNoRows {
			return nil, err
		}
		info.version = v.String
	}
	return info, nil
}

// tableColumns returns the columns of table t; none if it does not exist.
func tableColumns(ctx context.Context, q querier, t string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "PRAGMA table_info("+t+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var (
			cid, notNull, pk int
			name, typ        string
			dflt             sql.NullString
		)
		if err := rows.Scan(&cid, &name, &typ, &notNull, &dflt, &pk); err != nil {
			return nil, err
		}
		cols[strings.ToLower(name)] = true
	}
	return cols, rows.Err()
}

// migrate runs AZUREAL's schema script and migration (spec §1.3, §1.4) in
// tx: add last_claude_uuid if missing, drop the legacy usage columns, and
// set schema_version to 3. It refuses files Lazuli must not write to,
// re-reading the schema inside the transaction so a concurrent upgrade by
// another program is seen.
func migrate(ctx context.Context, tx *sql.Tx, path string) (*schemaInfo, error) {
	before, err := readSchema(ctx, tx)
	if err != nil {
		return nil, err
	}
	if reason := before.writeBlocker(); reason != "" {
		return nil, fmt.Errorf("%w: %w", ErrReadOnly, &FormatError{Path: path, Reason: reason})
	}
	for _, stmt := range schemaStatements {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("create schema: %w", err)
		}
	}
	cols, err := tableColumns(ctx, tx, "sessions")
	if err != nil {
		return nil, err
	}
	var alter []string
	if !cols["last_claude_uuid"] {
		alter = append(alter, `ALTER TABLE sessions ADD COLUMN last_claude_uuid TEXT NOT NULL DEFAULT ''`)
	}
	for _, c := range legacyColumns {
		if cols[c] {
			alter = append(alter, "ALTER TABLE sessions DROP COLUMN "+c)
		}
	}
	alter = append(alter, `UPDATE meta SET value = '3' WHERE key = 'schema_version'`)
	for _, stmt := range alter {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("migrate schema: %w", err)
		}
	}
	return readSchema(ctx, tx)
}
