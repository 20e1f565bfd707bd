package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

func findingCodes(r Report) []string {
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, string(f.Severity)+":"+f.Code)
	}
	return codes
}

func TestCheckFixturesAreHealthy(t *testing.T) {
	for _, src := range append(fixtureStores(t, "azs"), fixtureStores(t, "reference")...) {
		r, err := CheckFile(context.Background(), src)
		if err != nil {
			t.Fatalf("CheckFile(%s) = %v", src, err)
		}
		if !r.OK() || !r.Exists || r.QuickCheck[0] != "ok" {
			t.Errorf("%s: OK() = false: %v", filepath.Base(src), findingCodes(r))
		}
		for _, f := range r.Findings {
			if f.Severity == SeverityWarning {
				t.Errorf("%s: warning %s: %s", filepath.Base(src), f.Code, f.Message)
			}
		}
	}
}

func TestCheckFindsDamage(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		damage []string
		want   string // severity:code
	}{
		{"TextData", []string{`INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (1, 2, 'UserMessage', '{"UserMessage":{"content":"hi"}}', 2)`}, "error:data_not_blob"},
		{"RawJSONBlob", []string{`INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (1, 2, 'UserMessage', CAST('{"UserMessage":{"content":"hi"}}' AS BLOB), 2)`}, "error:data_not_zstd"},
		{"Undecodable", []string{`INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (1, 2, 'UserMessage', X'28b52ffd0000', 2)`}, "error:undecodable"},
		{"KindMismatch", []string{"UPDATE events SET kind = 'AssistantText'"}, "error:kind_mismatch"},
		{"CharLenMismatch", []string{"UPDATE events SET char_len = 99"}, "warning:char_len_mismatch"},
		{"SeqGap", []string{"UPDATE events SET seq = 5"}, "warning:seq_gap"},
		{"Orphans", []string{"PRAGMA foreign_keys = OFF", "DELETE FROM sessions"}, "error:orphan_events"},
		{"OrphanCompaction", []string{"PRAGMA foreign_keys = OFF", "INSERT INTO compactions(session_id, after_seq, summary) VALUES (7, 1, 's')"}, "error:orphan_compactions"},
		{"CompactionPastEnd", []string{"INSERT INTO compactions(session_id, after_seq, summary) VALUES (1, 9, 's')"}, "warning:compaction_past_end"},
		{"StorageClass", []string{"UPDATE sessions SET name = X'41'"}, "error:storage_class"},
		{"NewerSchema", []string{"UPDATE meta SET value = '7'"}, "warning:schema_version"},
		{"LegacyV2", []string{"UPDATE meta SET value = '2'", "ALTER TABLE sessions ADD COLUMN context_tokens INTEGER"}, "info:legacy_columns"},
		{"NoMeta", []string{"DROP TABLE meta"}, "warning:missing_table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := newStoreFile(t)
			rawExec(t, path, tt.damage...)
			r, err := CheckFile(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if codes := findingCodes(r); !slices.Contains(codes, tt.want) {
				t.Errorf("findings = %v, want %s", codes, tt.want)
			}
			if wantOK := tt.want[:5] != "error"; r.OK() != wantOK {
				t.Errorf("OK() = %v, want %v", r.OK(), wantOK)
			}
		})
	}
}

func TestCheckFileUnusable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cases := map[string]string{"text.azs": "error:not_sqlite", "empty.azs": "info:empty_file", "other.azs": "error:missing_table",
		"notables.azs": "info:empty_database"}
	writeFile(t, filepath.Join(dir, "text.azs"), []byte("hello"))
	writeFile(t, filepath.Join(dir, "empty.azs"), nil)
	rawExec(t, filepath.Join(dir, "other.azs"), "CREATE TABLE notes (x)")
	// A first write killed while it created the schema rolls back to this:
	// an SQLite header and no tables, which Open takes as a new store.
	rawExec(t, filepath.Join(dir, "notables.azs"), "CREATE TABLE gone (x)", "DROP TABLE gone")
	for name, want := range cases {
		r, err := CheckFile(ctx, filepath.Join(dir, name))
		if err != nil || !slices.Contains(findingCodes(r), want) {
			t.Errorf("CheckFile(%s) = %v, %v, want %s", name, findingCodes(r), err, want)
		}
		if wantOK := want[:5] != "error"; r.OK() != wantOK {
			t.Errorf("CheckFile(%s).OK() = %v, want %v (%v)", name, r.OK(), wantOK, findingCodes(r))
		}
	}
	s, err := Open(ctx, filepath.Join(dir, "notables.azs"))
	if err != nil {
		t.Fatalf("Open of a database with no tables: %v", err)
	}
	s.Close()
	if r, err := CheckFile(ctx, filepath.Join(dir, "missing.azs")); err != nil || r.Exists {
		t.Errorf("CheckFile(missing) = %+v, %v", r, err)
	}
}

func TestReportJSON(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, sampleBatch()...)
	r, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	json.Unmarshal(js, &back)
	if back["ok"] != true || back["events"] != float64(4) || back["schema_version"] != "3" || back["findings"] == nil {
		t.Errorf("report JSON = %s", js)
	}
	if fmt.Sprint(back["quick_check"]) != "[ok]" {
		t.Errorf("quick_check = %v", back["quick_check"])
	}
}
