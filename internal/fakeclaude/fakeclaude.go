// Package fakeclaude writes a fake claude CLI for tests that run Lazuli
// as a whole (a window's run, a `lazuli run` process): a shell script that
// answers --version, prints a scripted stream-json turn and waits, so that
// a test can act while the turn is in flight.
package fakeclaude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// Turn is what the fake prints: Lines, then, once the file Gate exists,
// After. With Gate "" it prints Lines and waits until it is killed.
type Turn struct {
	Lines []string
	Gate  string
	After []string
}

// Write writes the fake claude for turn into dir and returns its path. The
// fake is killed when the test ends, if it still runs (a killed Lazuli
// leaves it to its parent-death signal, which a failed test may not wait
// for).
func Write(t testing.TB, dir string, turn Turn) string {
	t.Helper()
	lines := filepath.Join(dir, "fake-claude-turn.jsonl")
	after := filepath.Join(dir, "fake-claude-after.jsonl")
	pidFile := filepath.Join(dir, "fake-claude.pid")
	writeLines(t, lines, turn.Lines)
	writeLines(t, after, turn.After)
	end := "exec sleep 3600\n"
	if turn.Gate != "" {
		end = fmt.Sprintf("while [ ! -e %q ]; do sleep 0.02; done\ncat %q\n", turn.Gate, after)
	}
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --version ]; then echo '2.1.0 (Claude Code)'; exit 0; fi\n"+
		"echo $$ > %q\ncat %q\n%s", pidFile, lines, end)
	p := filepath.Join(dir, "claude")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return // it never started
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill() // gone already, most of the time
			}
		}
	})
	return p
}

// writeLines writes lines, one a line, to path.
func writeLines(t testing.TB, path string, lines []string) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// StoreWithSession creates the store at path with one empty session of
// worktree main, closes it and returns the session's id.
func StoreWithSession(t testing.TB, path string) int64 {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Sessions().Create(context.Background(), "main", "")
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// Kinds lists the kinds of session id's events in st, space-separated,
// and fails the test unless their seqs run from 1 without a gap (a whole
// session).
func Kinds(t testing.TB, st *store.Store, id int64) string {
	t.Helper()
	evs, err := st.Events().All(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	ks := make([]string, len(evs))
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d of S%d has seq %d: the session is not whole", i, id, e.Seq)
		}
		ks[i] = string(e.Kind)
	}
	return strings.Join(ks, " ")
}
