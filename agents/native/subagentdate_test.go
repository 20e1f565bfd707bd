package native

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

// TestImportTranscriptDatesSubagentsFromTheFile: a sub-agent imported with
// its parent is dated by the file, not by the import: its own first
// timestamp when the stream has one, else its parent's time.
func TestImportTranscriptDatesSubagentsFromTheFile(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(fixtures.Dir(t), "real-cli/claude-g-subagent/stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	old := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tc := range []struct {
		name, text, wantParent, wantSub string
	}{
		{"own timestamp", string(raw), "2026-11-22 01:59:50", "2026-11-22 01:59:51"},
		{"no timestamps", regexpTimestamp.ReplaceAllString(string(raw), ""), "2025-03-04 05:06:07", "2025-03-04 05:06:07"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "capture.jsonl")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			tr, err := agents.ReadTranscript(path, parse.FormatAuto, parse.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			st := mustOpenStore(t)
			r, err := ImportTranscript(ctx, st, "main", "", path, tr)
			if err != nil {
				t.Fatal(err)
			}
			if r.Session.Created != tc.wantParent {
				t.Errorf("parent created %q, want %q (its first timestamp, else the file's time)", r.Session.Created, tc.wantParent)
			}
			links, err := st.Subagents().Of(ctx, r.Session.ID)
			if err != nil || len(links) != 1 {
				t.Fatalf("sub-agents %+v, %v", links, err)
			}
			sub, err := st.Sessions().Get(ctx, links[0].SessionID)
			if err != nil {
				t.Fatal(err)
			}
			if sub.Created != tc.wantSub {
				t.Errorf("sub-agent created %q, want %q", sub.Created, tc.wantSub)
			}
			rep, err := st.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				if f.Severity != store.SeverityInfo {
					t.Errorf("Check() finding %+v", f)
				}
			}
		})
	}
}

// regexpTimestamp matches a stream line's "timestamp" member.
var regexpTimestamp = regexp.MustCompile(`,?"timestamp":"[^"]*"`)
