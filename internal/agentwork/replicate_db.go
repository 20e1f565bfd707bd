package agentwork

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// replicateDB copies the SQLite database src (with its journal) to dst
// and replaces every row that holds an id by its copies, each with its ids
// remapped. Virtual tables and their shadow tables are left to the
// triggers that fill them.
func replicateDB(agent, src, dst string, copies int) error {
	for _, suf := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(src + suf)
		if os.IsNotExist(err) && suf != "" {
			continue
		}
		if err != nil {
			return err
		}
		if err := writeFile(dst+suf, b); err != nil {
			return err
		}
	}
	db, err := sql.Open("sqlite", "file:"+dst)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tables, err := plainTables(db)
	if err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	for _, t := range tables {
		if err := replicateTable(tx, agent, t, copies); err != nil {
			return fmt.Errorf("table %s: %w", t, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// plainTables are the database's tables that are neither SQLite's, nor
// virtual, nor a virtual table's shadow.
func plainTables(db *sql.DB) ([]string, error) {
	rows, err := db.Query("SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []string
	var virtual []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, err
		}
		if strings.HasPrefix(name, "sqlite_") {
			continue
		}
		if strings.HasPrefix(strings.ToUpper(def), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, name)
			continue
		}
		all = append(all, name)
	}
	var out []string
next:
	for _, t := range all {
		for _, v := range virtual {
			if strings.HasPrefix(t, v+"_") {
				continue next
			}
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// replicateTable inserts copies of the rows of t that hold an id, then
// deletes those rows themselves, so that the seed's ids appear nowhere
// (as in the files, which are all copies).
func replicateTable(tx *sql.Tx, agent, t string, copies int) error {
	withRowid := true
	rows, err := tx.Query("SELECT rowid, * FROM " + quote(t))
	if err != nil { // a table WITHOUT ROWID: its rows are kept
		withRowid = false
		if rows, err = tx.Query("SELECT * FROM " + quote(t)); err != nil {
			return err
		}
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return err
	}
	var all [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return err
		}
		all = append(all, vals)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var rowids []any
	if withRowid {
		cols = cols[1:]
		for i, vals := range all {
			rowids = append(rowids, vals[0])
			all[i] = vals[1:]
		}
	}
	qcols := make([]string, len(cols))
	for i, c := range cols {
		qcols[i] = quote(c)
	}
	ins, err := tx.Prepare(fmt.Sprintf("INSERT OR IGNORE INTO %s (%s) VALUES (%s)", quote(t), strings.Join(qcols, ", "),
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")))
	if err != nil {
		return err
	}
	defer ins.Close()
	rowid, err := rowidColumn(tx, t, cols)
	if err != nil {
		return err
	}
	for k := 0; k < copies; k++ {
		for _, vals := range all {
			nv, changed := remapRow(agent, vals, k)
			if !changed {
				continue
			}
			if rowid >= 0 {
				nv[rowid] = nil // a new row id
			}
			if _, err := ins.Exec(nv...); err != nil {
				return err
			}
		}
	}
	for i, vals := range all {
		if _, changed := remapRow(agent, vals, 0); changed && withRowid {
			if _, err := tx.Exec("DELETE FROM "+quote(t)+" WHERE rowid = ?", rowids[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// remapRow returns the row with the ids of its text values remapped.
func remapRow(agent string, vals []any, k int) ([]any, bool) {
	out := make([]any, len(vals))
	changed := false
	for i, v := range vals {
		switch x := v.(type) {
		case string:
			n := Remap(agent, x, k)
			changed = changed || n != x
			out[i] = n
		case []byte:
			n := Remap(agent, string(x), k)
			changed = changed || n != string(x)
			out[i] = []byte(n)
		default:
			out[i] = v
		}
	}
	return out, changed
}

// rowidColumn is the index of t's INTEGER PRIMARY KEY column (an alias
// of its row id, which a copy must not repeat), or -1.
func rowidColumn(tx *sql.Tx, t string, cols []string) (int, error) {
	rows, err := tx.Query("SELECT name, type, pk FROM pragma_table_info(?)", t)
	if err != nil {
		return -1, err
	}
	defer rows.Close()
	col, pks := "", 0
	for rows.Next() {
		var name, typ string
		var pk int
		if err := rows.Scan(&name, &typ, &pk); err != nil {
			return -1, err
		}
		if pk > 0 {
			pks++
			if strings.EqualFold(typ, "INTEGER") {
				col = name
			}
		}
	}
	if pks != 1 || col == "" {
		return -1, rows.Err()
	}
	for i, c := range cols {
		if c == col {
			return i, rows.Err()
		}
	}
	return -1, rows.Err()
}
