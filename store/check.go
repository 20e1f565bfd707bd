package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// Severity says how bad a Finding is.
type Severity string

// Severities, worst first. An error means damage: data that AZUREAL or
// Lazuli cannot read or would show wrongly. A warning is something off
// that loses nothing; info is a fact worth knowing (a legacy schema).
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Finding is one problem Check found, aggregated over the rows it affects.
type Finding struct {
	Severity  Severity `json:"severity"`
	Code      string   `json:"code"` // stable identifier, e.g. "data_not_blob"
	Message   string   `json:"message"`
	SessionID int64    `json:"session_id,omitempty"`
	Count     int      `json:"count,omitempty"` // rows affected
	Seqs      []int64  `json:"seqs,omitempty"`  // the first affected seqs
}

// Report is the result of Check: what the file holds and what is wrong
// with it. It encodes to JSON (for lazuli check --json) with an extra "ok".
type Report struct {
	Path          string              `json:"path"`
	Exists        bool                `json:"exists"`
	QuickCheck    []string            `json:"quick_check,omitempty"` // ["ok"] when sound
	SchemaVersion string              `json:"schema_version"`
	Tables        map[string][]string `json:"tables,omitempty"` // table → columns
	Sessions      int64               `json:"sessions"`
	Events        int64               `json:"events"`
	Compactions   int64               `json:"compactions"`
	// FullText is what Lazuli's table of full tool output holds; nil
	// when the store has none.
	FullText *FullTextUsage `json:"full_text,omitempty"`
	Findings []Finding      `json:"findings"`
}

// OK reports whether the store is undamaged: no finding is an error.
func (r Report) OK() bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			return false
		}
	}
	return true
}

// MarshalJSON encodes the report with its OK value as "ok".
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report // no MarshalJSON: avoids recursion
	return json.Marshal(struct {
		OK bool `json:"ok"`
		plain
	}{r.OK(), plain(r)})
}

// maxSeqsPerFinding bounds Finding.Seqs.
const maxSeqsPerFinding = 5

// findings aggregates findings by code and session.
type findings struct {
	list  []Finding
	index map[string]int
}

// addN records a file-level finding that affects n rows.
func (fs *findings) addN(sev Severity, code string, n int, msg string) {
	fs.list = append(fs.list, Finding{Severity: sev, Code: code, Message: msg, Count: n})
}

// add records one occurrence (seq 0: not about a row). Occurrences with the
// same code, session and message are counted in one Finding.
func (fs *findings) add(sev Severity, code string, session, seq int64, msg string) {
	key := fmt.Sprintf("%s/%d/%s", code, session, msg)
	if fs.index == nil {
		fs.index = map[string]int{}
	}
	i, ok := fs.index[key]
	if !ok {
		i = len(fs.list)
		fs.index[key] = i
		fs.list = append(fs.list, Finding{Severity: sev, Code: code, Message: msg, SessionID: session})
	}
	f := &fs.list[i]
	f.Count++
	if seq != 0 && len(f.Seqs) < maxSeqsPerFinding {
		f.Seqs = append(f.Seqs, seq)
	}
}

// sorted returns the findings, worst first.
func (fs *findings) sorted() []Finding {
	rank := map[Severity]int{SeverityError: 0, SeverityWarning: 1, SeverityInfo: 2}
	out := append([]Finding{}, fs.list...)
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Severity] < rank[out[j].Severity] })
	return out
}

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
// rows cannot be checked (not a database, no sessions or events table).
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

// has reports whether a finding with code was recorded.
func (fs *findings) has(code string) bool {
	for _, f := range fs.list {
		if f.Code == code {
			return true
		}
	}
	return false
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
