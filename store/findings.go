package store

// What lazuli check reports: findings of each severity, gathered by the
// checks of the file, AZUREAL's tables and each of Lazuli's own (check.go,
// check_rows.go and each domain's check function).

import (
	"encoding/json"
	"fmt"
	"sort"
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

// has reports whether a finding with code was recorded.
func (fs *findings) has(code string) bool {
	for _, f := range fs.list {
		if f.Code == code {
			return true
		}
	}
	return false
}

// FullTextUsage is how much room the full text takes.
type FullTextUsage struct {
	Rows       int64
	Bytes      int64 // uncompressed
	Compressed int64 // as stored
	Orphans    int64 // rows whose session is gone or was replaced
}
