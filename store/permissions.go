package store

// This file keeps a session's permission settings: the mode its agent runs
// in and the rules it was given, in the AI-SDK rule shape ({permission,
// pattern, action, source, added_at}). AZUREAL's schema has no place for
// them, so they live in a table of Lazuli's own, lazuli_permissions, which
// AZUREAL ignores. Like lazuli_session_flags, a row goes with its session
// (ON DELETE CASCADE) and keeps the session's created text: a row whose
// session is gone, or now holds another session under a reused id, is
// ignored on read, reported by Check and removed by the next write of
// permissions. A session with neither a mode nor rules has no row.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

var permissionsSchema = `CREATE TABLE IF NOT EXISTS lazuli_permissions (
    session_id      INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    session_created TEXT NOT NULL,
    mode            TEXT NOT NULL DEFAULT '',
    rules           TEXT NOT NULL DEFAULT '[]'
)`

// PermissionRule is one rule, in the AI-SDK shape. What the fields mean
// (tool names, patterns, actions) is the agents package's business; the
// store keeps them as they are given.
type PermissionRule struct {
	Permission string `json:"permission"` // a tool name: Bash, Edit, Read, …
	Pattern    string `json:"pattern"`    // what the rule covers: "git *", "src/**"; "" for every use
	Action     string `json:"action"`     // allow, deny or ask
	Source     string `json:"source"`     // session or project
	AddedAt    string `json:"added_at"`   // when it was added, in TimeFormat
}

// Permissions are a session's mode and rules; the zero value means none
// of its own (the project's defaults apply).
type Permissions struct {
	Mode  string           `json:"mode,omitempty"` // "" leaves the project's mode
	Rules []PermissionRule `json:"rules"`
}

// IsZero reports whether p holds neither a mode nor rules.
func (p Permissions) IsZero() bool { return p.Mode == "" && len(p.Rules) == 0 }

// Of returns session id's mode and rules: the zero value when it has none
// (or the store has no PermissionsTable). A row whose rules are not a
// JSON list is an error, never read as "no rules".
func (ps PermissionService) Of(ctx context.Context, id int64) (Permissions, error) {
	var p Permissions
	db, err := ps.s.ownTableReader(ctx, PermissionsTable)
	if err != nil || db == nil {
		return p, wrapPermissions(err)
	}
	var rules string
	err = db.QueryRowContext(ctx, `SELECT p.mode, p.rules FROM lazuli_permissions p
		JOIN sessions s ON s.id = p.session_id AND s.created = p.session_created WHERE p.session_id = ?`, id).Scan(&p.Mode, &rules)
	if errors.Is(err, sql.ErrNoRows) {
		return p, nil
	}
	if err != nil {
		return p, wrapPermissions(classify(err))
	}
	if err := json.Unmarshal([]byte(rules), &p.Rules); err != nil {
		return Permissions{}, wrapPermissions(fmt.Errorf("session %d: rules are not a JSON list of rules: %w", id, err))
	}
	return p, nil
}

// Modes returns the permission mode of every session that has one of its
// own, by id.
//
// Test support: the window and the CLI read one session's settings (Of);
// tests read every session's mode at once.
func (ps PermissionService) Modes(ctx context.Context) (map[int64]string, error) {
	out := map[int64]string{}
	db, err := ps.s.ownTableReader(ctx, PermissionsTable)
	if err != nil || db == nil {
		return out, wrapPermissions(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT p.session_id, p.mode FROM lazuli_permissions p
		JOIN sessions s ON s.id = p.session_id AND s.created = p.session_created WHERE p.mode != ''`)
	if err != nil {
		return nil, wrapPermissions(classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var mode string
		if err := rows.Scan(&id, &mode); err != nil {
			return nil, wrapPermissions(err)
		}
		out[id] = mode
	}
	return out, wrapPermissions(classify(rows.Err()))
}

func wrapPermissions(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read session permissions: %w", err)
}

// Set replaces session id's mode and rules with p; the zero value removes
// them. Rows of sessions that are gone are removed.
func (ps PermissionService) Set(ctx context.Context, id int64, p Permissions) error {
	return ps.Update(ctx, id, func(cur *Permissions) error { *cur = p; return nil })
}

// Update reads session id's permissions, lets change edit them and writes
// the result, in one write transaction (so that two "always allow"
// answers do not lose each other).
func (ps PermissionService) Update(ctx context.Context, id int64, change func(*Permissions) error) error {
	err := ps.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		created, err := sessionRowTx(ctx, tx, id, PermissionsTable, permissionsSchema)
		if err != nil {
			return err
		}
		var p Permissions
		var rules string
		err = tx.QueryRowContext(ctx, "SELECT mode, rules FROM lazuli_permissions WHERE session_id = ?", id).Scan(&p.Mode, &rules)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err == nil {
			if err := json.Unmarshal([]byte(rules), &p.Rules); err != nil {
				return fmt.Errorf("rules of session %d are not a JSON list of rules: %w", id, err)
			}
		}
		if err := change(&p); err != nil {
			return err
		}
		if p.IsZero() {
			_, err := tx.ExecContext(ctx, "DELETE FROM lazuli_permissions WHERE session_id = ?", id)
			return err
		}
		if p.Rules == nil {
			p.Rules = []PermissionRule{}
		}
		b, err := json.Marshal(p.Rules)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO lazuli_permissions(session_id, session_created, mode, rules) VALUES (?, ?, ?, ?)
			ON CONFLICT(session_id) DO UPDATE SET session_created = excluded.session_created, mode = excluded.mode, rules = excluded.rules`,
			id, created, p.Mode, string(b))
		return err
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("set permissions of session %d: %w", id, err)
	}
	return nil
}

// checkPermissions reports PermissionsTable as information, and rows whose
// session is gone as a warning: they are ignored, and the next write of
// permissions removes them.
func checkPermissions(ctx context.Context, q querier, fs *findings) error {
	return checkOwnTable(ctx, q, fs, ownTable{name: PermissionsTable, code: "permissions", count: sessionRowsQuery(PermissionsTable, "p"),
		info:  "table %s holds the permission mode or rules of %d session(s); it is Lazuli's own, AZUREAL ignores it",
		stale: "%d row(s) of %s name a session that no longer exists; they are ignored and the next change of permissions removes them"})
}
