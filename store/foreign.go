package store

import (
	"context"
	"fmt"
	"strings"
)

// A store file may carry schema objects AZUREAL's schema does not have:
// another program's, or a hostile file's. A trigger runs on Lazuli's
// writes (AFTER INSERT ON sessions … DELETE FROM events … silently loses
// events); a view or virtual table in place of one of the tables makes
// reads return whatever its definition computes. Lazuli reads a file with
// a foreign trigger (reads do not fire triggers) but never writes to it,
// refuses a file whose tables are not tables, and check reports every
// foreign object.

// schemaObject is one row of sqlite_master.
type schemaObject struct {
	typ, name, table, sql string
}

// ownTables are the tables a store may hold: AZUREAL's, and Lazuli's own
// record of native imports (native.go), full tool output (fulltext.go),
// the agents' thinking (thinking.go), token usage (usage.go), fork links
// (fork.go), pinned and archived marks (flags.go), sub-agent links
// (subagents.go), why agent runs failed (runfailures.go) and permission
// modes and rules (permissions.go). SQLite's internal tables
// (sqlite_sequence, sqlite_stat1, …) are allowed too.
var ownTables = map[string]bool{"sessions": true, "events": true, "compactions": true, "meta": true,
	NativeTable: true, FullTextTable: true, ThinkingTable: true, UsageTable: true, ForkTable: true, FlagsTable: true,
	SubagentTable: true, RunFailureTable: true, PermissionsTable: true}

// ownIndexes are the indexes of those tables' schema scripts.
var ownIndexes = map[string]bool{"idx_events_session": true, "idx_compactions_session": true,
	"idx_lazuli_native_imports_session": true, "idx_lazuli_thinking_session": true, "idx_lazuli_usage_session": true,
	"idx_lazuli_subagents_parent": true, "idx_lazuli_run_failures_session": true}

// schemaObjects reads the rows of sqlite_master that match where (all
// when it is "").
func schemaObjects(ctx context.Context, q querier, where string) ([]schemaObject, error) {
	query := "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master"
	if where != "" {
		query += " WHERE " + where
	}
	rows, err := q.QueryContext(ctx, query+" ORDER BY type, name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var objs []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.typ, &o.name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		objs = append(objs, o)
	}
	return objs, rows.Err()
}

// foreignObject is a schema object AZUREAL's schema does not have.
type foreignObject struct {
	schemaObject
	severity Severity
	blocks   bool   // Lazuli must not write to the file
	replaces bool   // it stands where one of the tables should be: the file is not a store
	reason   string // a sentence for the user
}

// foreignObjects returns the objects of objs AZUREAL's schema does not have.
func foreignObjects(objs []schemaObject) []foreignObject {
	var out []foreignObject
	for _, o := range objs {
		f := foreignObject{schemaObject: o, severity: SeverityWarning}
		virtual := o.typ == "table" && strings.HasPrefix(strings.ToUpper(strings.TrimSpace(o.sql)), "CREATE VIRTUAL")
		switch {
		case o.typ == "trigger":
			f.severity, f.blocks = SeverityError, true
			f.reason = fmt.Sprintf("trigger %s on %s: AZUREAL's schema has no triggers, and it would run on every write", o.name, o.table)
		case (o.typ == "view" || virtual) && ownTables[o.name]:
			f.severity, f.blocks, f.replaces = SeverityError, true, true
			f.reason = fmt.Sprintf("%s is a %s, not a table: its rows are whatever its definition computes", o.name, kindOfTable(o.typ, virtual))
		case o.typ == "view" || virtual:
			f.reason = fmt.Sprintf("%s %s is not part of AZUREAL's schema", kindOfTable(o.typ, virtual), o.name)
		case o.typ == "table" && !ownTables[o.name] && !strings.HasPrefix(o.name, "sqlite_"):
			f.reason = fmt.Sprintf("table %s is not part of AZUREAL's schema", o.name)
		case o.typ == "index" && !ownIndexes[o.name] && !strings.HasPrefix(o.name, "sqlite_autoindex_"):
			f.reason = fmt.Sprintf("index %s on %s is not part of AZUREAL's schema", o.name, o.table)
			if !ownTables[o.table] {
				continue // it belongs to a foreign table, reported itself
			}
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

func kindOfTable(typ string, virtual bool) string {
	if virtual {
		return "virtual table"
	}
	return typ
}

// foreignBlocker returns why Lazuli must not write to a file with these
// objects, or "".
func foreignBlocker(objs []schemaObject) string {
	for _, f := range foreignObjects(objs) {
		if f.blocks {
			return "it has a schema object AZUREAL's does not: " + f.reason
		}
	}
	return ""
}

// foreignWriteBlocker reads the schema objects in tx, right before a
// write, and returns why Lazuli must not write, or "": another program
// may have added a trigger since the Store looked.
func foreignWriteBlocker(ctx context.Context, q querier) (string, error) {
	objs, err := schemaObjects(ctx, q, "type IN ('trigger', 'view') OR (type = 'table' AND sql LIKE 'CREATE VIRTUAL%')")
	if err != nil {
		return "", err
	}
	return foreignBlocker(objs), nil
}
