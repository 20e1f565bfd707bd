package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// Check inspects the store for damage and format problems: SQLite's
// quick_check, the schema and schema_version, storage classes AZUREAL
// requires, undecodable payloads, kind and char_len mismatches, seq gaps,
// orphaned rows and compactions past the end of their session. It reads
// every row. A missing store yields a report with Exists false.
func (s *Store) Check(ctx context.Context) (Report, error) {
	db, _, err := s.reader(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("check store %s: %w", s.path, err)
	}
	if db == nil {
		return Report{Path: s.path, Findings: []Finding{}}, nil
	}
	r, err := checkDB(ctx, db, s.codec, s.path)
	if err != nil {
		return Report{}, fmt.Errorf("check store %s: %w", s.path, err)
	}
	return r, nil
}

// CheckFile checks the file at path like Store.Check, without the
// validation Open does, so that it reports on files Open refuses (not
// SQLite, damaged, another program's). The file is opened read-only.
func CheckFile(ctx context.Context, path string) (Report, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Report{}, fmt.Errorf("check store %s: %w", path, err)
	}
	if err := CheckRegular(abs); err != nil {
		return Report{}, fmt.Errorf("check store: %w", err)
	}
	r := Report{Path: abs, Findings: []Finding{}}
	present, err := fileHasData(abs)
	if err == nil && !present && fileExists(abs) {
		r.Exists = true
		r.Findings = []Finding{{Severity: SeverityInfo, Code: "empty_file", Message: "the file is empty: Lazuli and AZUREAL treat it as a new store"}}
		return r, nil
	}
	if err != nil || !present {
		var fe *FormatError
		if errors.As(err, &fe) {
			r.Exists, r.Findings = true, []Finding{{Severity: SeverityError, Code: "not_sqlite", Message: fe.Reason}}
			return r, nil
		}
		return r, err
	}
	if err := checkHeader(abs); err != nil {
		r.Exists, r.Findings = true, []Finding{{Severity: SeverityError, Code: "not_sqlite", Message: "the file is not an SQLite database"}}
		return r, nil
	}
	cd, err := codec.New()
	if err != nil {
		return r, err
	}
	defer cd.Close()
	if inWAL(abs) { // read through a copy, as Open does (checkjournal.go)
		r, err = checkCopy(ctx, abs, cd, walFinding)
	} else {
		var db *sql.DB
		if db, err = openPool(abs, true, DefaultBusyTimeout); err != nil {
			return r, fmt.Errorf("check store %s: %w", path, err)
		}
		defer db.Close()
		r, err = checkDB(ctx, db, cd, abs)
		if isHotJournal(err) { // an interrupted write: check a rolled-back copy (checkjournal.go)
			r, err = checkCopy(ctx, abs, cd, interruptedFinding)
		}
	}
	if err != nil {
		return r, fmt.Errorf("check store %s: %w", path, err)
	}
	return r, nil
}

// checkDB runs all checks in one read transaction.
func checkDB(ctx context.Context, db *sql.DB, cd *codec.Codec, path string) (Report, error) {
	r := Report{Path: path, Exists: true}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return r, classify(err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	var fs findings
	ok, err := checkFile(ctx, tx, &r, &fs)
	if err == nil && ok {
		err = checkRows(ctx, tx, cd, &r, &fs)
	}
	r.Findings = fs.sorted()
	return r, classify(err)
}

// checkFile runs quick_check and the schema checks. ok is false when the
// rows cannot be checked (not a database, no tables, no sessions or events
// table).
func checkFile(ctx context.Context, q querier, r *Report, fs *findings) (bool, error) {
	msgs, err := quickCheckMessages(ctx, q, 100)
	if err != nil {
		var fe *FormatError
		if errors.As(formatOrErr(r.Path, err), &fe) {
			fs.add(SeverityError, "unreadable", 0, 0, fe.Reason)
			return false, nil
		}
		return false, err
	}
	r.QuickCheck = msgs
	if len(msgs) != 1 || msgs[0] != "ok" {
		fs.add(SeverityError, "quick_check", 0, 0, "SQLite's quick_check found damage: "+strings.Join(msgs, "; "))
	}
	info, err := readSchema(ctx, q)
	if err != nil {
		return false, err
	}
	if info.empty() { // what a write killed while it created the store leaves, once rolled back
		fs.add(SeverityInfo, "empty_database", 0, 0, "the database has no tables: Lazuli and AZUREAL treat it as a new store")
		return false, nil
	}
	r.SchemaVersion = info.version
	r.Tables = map[string][]string{}
	for t, cols := range info.tables {
		for c := range cols {
			r.Tables[t] = append(r.Tables[t], c)
		}
		sort.Strings(r.Tables[t])
	}
	checkSchema(info, fs)
	// A view in place of a table is read as what it is: not at all.
	return info.hasTable("sessions") && info.hasTable("events") && !fs.has("missing_column") && !fs.has("table_replaced"), nil
}

// checkSchema reports missing tables and columns and the schema version.
func checkSchema(info *schemaInfo, fs *findings) {
	for _, t := range []string{"sessions", "events", "compactions", "meta"} {
		switch {
		case !info.hasTable(t) && (t == "sessions" || t == "events"):
			fs.add(SeverityError, "missing_table", 0, 0, "table "+t+" is missing: this is not a session store")
		case !info.hasTable(t):
			fs.add(SeverityWarning, "missing_table", 0, 0, "table "+t+" is missing (AZUREAL creates it when it opens the file)")
		}
		for _, c := range requiredColumns[t] {
			if info.hasTable(t) && !info.hasColumn(t, c) {
				fs.add(SeverityError, "missing_column", 0, 0, fmt.Sprintf("column %s.%s is missing", t, c))
			}
		}
	}
	for _, c := range []string{"completed", "duration_ms", "cost_usd"} {
		if info.hasTable("sessions") && !info.hasColumn("sessions", c) {
			fs.add(SeverityWarning, "legacy_v1", 0, 0, "column sessions."+c+" is missing: a v1 store, which AZUREAL cannot list")
		}
	}
	for _, c := range legacyColumns {
		if info.hasColumn("sessions", c) {
			fs.add(SeverityInfo, "legacy_columns", 0, 0, "legacy column sessions."+c+" (AZUREAL drops it when it opens the file)")
		}
	}
	checkVersion(info, fs)
	checkForeign(info, fs)
}

// checkForeign reports every schema object AZUREAL's schema does not have
// (see foreign.go): triggers and views or virtual tables in place of its
// tables as damage (Lazuli does not write to such a file), other tables,
// views and indexes as warnings.
func checkForeign(info *schemaInfo, fs *findings) {
	for _, f := range foreignObjects(info.objects) {
		code := "foreign_" + f.typ
		msg := f.reason
		switch {
		case f.replaces:
			code = "table_replaced"
			msg += "; Lazuli neither reads nor writes this file"
		case f.blocks:
			msg += "; Lazuli does not write to this file"
		}
		fs.add(f.severity, code, 0, 0, msg)
	}
}

func checkVersion(info *schemaInfo, fs *findings) {
	switch n := info.versionNumber(); {
	case info.version == "" && info.hasTable("meta"):
		fs.add(SeverityWarning, "schema_version", 0, 0, "meta has no schema_version")
	case n < 0:
		fs.add(SeverityWarning, "schema_version", 0, 0, fmt.Sprintf("schema_version %q is not a number", info.version))
	case n > 3:
		fs.add(SeverityWarning, "schema_version", 0, 0, fmt.Sprintf("schema_version %s is newer than 3: Lazuli only reads this file", info.version))
	case n > 0 && n < 3:
		fs.add(SeverityInfo, "schema_version", 0, 0, fmt.Sprintf("schema_version %s: AZUREAL migrates it to 3 when it opens the file", info.version))
	}
}

// checkCopy checks a store whose last write was interrupted, or in WAL
// mode, without touching it: it checks a copy (copyInterrupted). The report
// names the store and adds note.
func checkCopy(ctx context.Context, path string, cd *codec.Codec, note Finding) (Report, error) {
	c, err := copyInterrupted(path)
	if err != nil {
		return Report{}, err
	}
	defer c.remove()
	db, err := openPool(c.path, false, DefaultBusyTimeout)
	if err != nil {
		return Report{}, err
	}
	defer db.Close()
	r, err := checkDB(ctx, db, cd, path)
	if err != nil {
		return r, err
	}
	r.Findings = append(r.Findings, note)
	return r, nil
}
