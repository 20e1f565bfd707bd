package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/nativetree"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// nativeArgs are import-native's folder flags for a history.
func nativeArgs(claude, codex string, more ...string) []string {
	args := []string{"import-native", "--claude-dir", claude, "--codex-dir", codex}
	// The other agents' folders default to HOME's, which may hold their
	// history: none of these tests reads it.
	for _, flag := range []string{"--gemini-dir", "--qwen-dir", "--opencode-dir", "--pi-dir", "--copilot-dir"} {
		args = append(args, flag, noHistory)
	}
	return append(args, more...)
}

// noHistory is a folder that does not exist.
const noHistory = "/nonexistent/lazuli-test-no-history"

// nativeJSON is the subset of import-native --json the tests read.
type nativeJSON struct {
	Store   string `json:"store"`
	Results []struct {
		ID, ParentID, Outcome, Reason string
		Session                       int64
		Events                        int
	} `json:"results"`
	Summary map[string]int `json:"summary"`
}

func TestImportNativeCommand(t *testing.T) {
	tree := nativetree.ForTest(t)
	dir := t.TempDir()
	storePath := filepath.Join(dir, ".azureal", "sessions.azs")

	code, out, errOut := run(t, dir, nativeArgs(tree.ClaudeDir, tree.CodexDir, "--dry-run", "--project", "/src/experiments")...)
	if code != 0 {
		t.Fatalf("--dry-run exit %d: %s", code, errOut)
	}
	for _, want := range []string{"STATE", "new    claude", "/src/experiments/claude_p", "Use the Explore task in sub-agents",
		"› Give me a comprehensive overview", "3 sessions (with 1 sub-agent) found; nothing was written (--dry-run)."} {
		if !strings.Contains(out, want) {
			t.Errorf("--dry-run output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(storePath); err == nil {
		t.Fatal("--dry-run created the store")
	}

	code, out, errOut = run(t, dir, nativeArgs(tree.ClaudeDir, tree.CodexDir, "--project", "/src/experiments")...)
	if code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"imported   claude 2b4ed4c0-b905-41de-9238-273db3ec737a: new session S1, 23 events",
		"imported   claude 256ba646-2c15-437a-98e9-4171aafd030e: new session S2, 10 events",
		"imported   claude 29ccd257-68b1-427f-ae5f-6524b7cb6f20: new session S4, 5 events",
		"  imported   claude 29ccd257-68b1-427f-ae5f-6524b7cb6f20/agent-a2271d1: new session S3, 59 events",
		"Search index: 97 texts indexed (0.2 MB).",
		"Imported 3 new sessions and 1 sub-agent with 97 events; appended 0 events to 0 sessions; 0 unchanged; 0 skipped.",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("import printed:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
	if code, out, _ := run(t, dir, "check"); code != 0 || !strings.Contains(out, "native_imports (4 rows)") {
		t.Errorf("check after the import: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, dir, "ls")
	if code != 0 || !strings.Contains(out, "Use the Explore task in sub-a… › Give me a comprehensive overview of the…") {
		t.Errorf("ls does not show the sub-agent under its parent's name:\n%s", out)
	}

	before := fileHash(t, storePath)
	code, out, errOut = run(t, dir, nativeArgs(tree.ClaudeDir, tree.CodexDir, "--project", "/src/experiments", "--json")...)
	if code != 0 {
		t.Fatalf("import --json exit %d: %s", code, errOut)
	}
	var rep nativeJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("import --json: %v\n%s", err, out)
	}
	if rep.Summary["unchanged"] != 4 || rep.Summary["imported"] != 0 || len(rep.Results) != 4 || rep.Store != storePath {
		t.Errorf("importing again: %+v", rep)
	}
	if fileHash(t, storePath) != before {
		t.Error("importing nothing new changed the store")
	}
}

func TestImportNativeCommandAppends(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	path := filepath.Join(claude, "-w-proj", "s1.jsonl")
	line := func(uuid, parent, typ, content string) string {
		return `{"type":"` + typ + `","message":{"role":"` + typ + `","content":` + content + `},"uuid":"` + uuid +
			`","parentUuid":` + parent + `,"sessionId":"s1","cwd":"/w/proj","timestamp":"2025-06-01T10:00:00.000Z"}`
	}
	l1 := line("u1", "null", "user", `"fix the build"`)
	l2 := line("a1", `"u1"`, "assistant", `[{"type":"text","text":"Fixed."}]`)
	l3 := line("u2", `"a1"`, "user", `"and the tests"`)
	write := func(s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	importJSON := func() nativeJSON {
		t.Helper()
		code, out, errOut := run(t, dir, nativeArgs(claude, filepath.Join(dir, "no-codex"), "--json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, "codex history "+filepath.Join(dir, "no-codex")+": no such folder") {
			t.Errorf("no note about the missing codex folder: %q", errOut)
		}
		var rep nativeJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return rep
	}
	write(l1 + "\n" + l2[:30])
	if rep := importJSON(); rep.Results[0].Outcome != "imported" || rep.Results[0].Events != 1 {
		t.Fatalf("first import: %+v", rep)
	}
	write(l1 + "\n" + l2 + "\n" + l3 + "\n")
	if rep := importJSON(); rep.Results[0].Outcome != "appended" || rep.Results[0].Events != 2 || rep.Results[0].Session != 1 {
		t.Fatalf("after two more lines: %+v", rep)
	}
	code, out, _ := run(t, dir, "show", "S1", "--json")
	var evs []struct{ Seq int64 }
	if code != 0 || json.Unmarshal([]byte(out), &evs) != nil || len(evs) != 3 || evs[2].Seq != 3 {
		t.Errorf("show S1: %s", out)
	}
	write(l1 + "\n")
	rep := importJSON()
	if rep.Results[0].Outcome != "skipped" || !strings.Contains(rep.Results[0].Reason, "rewritten or truncated") {
		t.Errorf("a truncated file: %+v", rep)
	}
	code, out, _ = run(t, dir, nativeArgs(claude, filepath.Join(dir, "no-codex"), "--reimport")...)
	if code != 0 || !strings.Contains(out, "imported   claude s1: new session S2, 1 events") {
		t.Errorf("--reimport: exit %d\n%s", code, out)
	}
}

func TestImportNativeCommandOwnRuns(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	wrapped := codec.ContextOpenTag + "\n## User\nold\n" + codec.ContextCloseTag + "\n\nnext"
	body, _ := json.Marshal(wrapped)
	line := `{"type":"user","message":{"role":"user","content":` + string(body) + `},"uuid":"u1","parentUuid":null,"sessionId":"own","cwd":"/w","timestamp":"2025-06-01T10:00:00.000Z"}` + "\n"
	if err := os.MkdirAll(filepath.Join(claude, "-w"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claude, "-w", "own.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, dir, nativeArgs(claude, filepath.Join(dir, "none"))...)
	if code != 0 || !strings.Contains(out, "skipped    claude own: run by AZUREAL or Lazuli") || !strings.Contains(out, "--include-own") {
		t.Errorf("own run: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, dir, nativeArgs(claude, filepath.Join(dir, "none"), "--include-own")...)
	if code != 0 || !strings.Contains(out, "imported   claude own: new session S1, 1 events") {
		t.Errorf("--include-own: exit %d\n%s", code, out)
	}
}

func TestImportNativeCommandErrors(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := run(t, dir, nativeArgs(filepath.Join(dir, "a"), filepath.Join(dir, "b"))...)
	if code != ExitError || !strings.Contains(errOut, native.ErrNoHistory.Error()) || !strings.Contains(errOut, "no such folder") {
		t.Errorf("no history: exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, dir, "import-native", "extra")
	if code != ExitUsage || !strings.Contains(errOut, "usage: lazuli import-native") {
		t.Errorf("an argument: exit %d: %s", code, errOut)
	}
	claude := filepath.Join(dir, "claude")
	if err := os.MkdirAll(filepath.Join(claude, "-w"), 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s","cwd":"/w"}` + "\n"
	if err := os.WriteFile(filepath.Join(claude, "-w", "s.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.azs")
	if err := os.WriteFile(bad, []byte("not a database, just text that is long enough to have a header"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fileHash(t, bad)
	code, _, errOut = run(t, dir, nativeArgs(claude, filepath.Join(dir, "none"), "--store", bad)...)
	if code != ExitError || !strings.Contains(errOut, "not an SQLite database") || fileHash(t, bad) != before {
		t.Errorf("a damaged store: exit %d: %s", code, errOut)
	}
}

// TestImportNativeBuildsTheIndex: import-native leaves the search index
// complete (an Update afterwards has nothing to read), in the same pass;
// --no-index leaves it to the next search.
func TestImportNativeBuildsTheIndex(t *testing.T) {
	tree := nativetree.ForTest(t)
	ctx := context.Background()
	for _, noIndex := range []bool{false, true} {
		dir := t.TempDir()
		args := nativeArgs(tree.ClaudeDir, tree.CodexDir, "--project", "/src/experiments")
		if noIndex {
			args = append(args, "--no-index")
		}
		if code, _, errOut := run(t, dir, args...); code != 0 {
			t.Fatalf("import exit %d: %s", code, errOut)
		}
		st, err := store.Open(ctx, filepath.Join(dir, ".azureal", "sessions.azs"))
		if err != nil {
			t.Fatal(err)
		}
		x, err := search.Open(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		s, err := x.Update(ctx, nil)
		x.Close()
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		if indexed := s.Events == 0 && !s.Rebuilt; indexed == noIndex {
			t.Errorf("--no-index %v: the Update after the import read %d events (rebuilt %v)", noIndex, s.Events, s.Rebuilt)
		}
	}
}

// TestImportNativeLeavesTheIndexWhenNothingIsNew: a re-import that only
// records a touched file's new stat does not open (or create) the search
// index: it stays the folder walk and a read of the record.
func TestImportNativeLeavesTheIndexWhenNothingIsNew(t *testing.T) {
	tree := nativetree.ForTest(t)
	dir := t.TempDir()
	args := nativeArgs(tree.ClaudeDir, tree.CodexDir, "--project", "/src/experiments")
	if code, _, errOut := run(t, dir, append(args, "--no-index")...); code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut)
	}
	later := time.Now().Add(time.Minute)
	for _, p := range tree.Files {
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errOut := run(t, dir, args...); code != 0 || !strings.Contains(out, "Imported 0 new sessions") {
		t.Fatalf("re-import exit %d: %s%s", code, out, errOut)
	}
	index, err := search.IndexPath(filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(index); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a re-import with nothing new opened the search index (%v)", err)
	}
}

// TestImportNativeNoChangeWritesNothing: a re-import of a history that did
// not change leaves the store byte for byte and its modification time as
// they were, and does not touch the search index.
func TestImportNativeNoChangeWritesNothing(t *testing.T) {
	tree := nativetree.ForTest(t)
	dir := t.TempDir()
	t.Setenv(store.CacheDirEnv, filepath.Join(dir, "cache"))
	args := nativeArgs(tree.ClaudeDir, tree.CodexDir, "--json")
	summary := func() map[string]int {
		t.Helper()
		code, out, errOut := run(t, dir, args...)
		var rep nativeJSON
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("import exit %d: %s%s", code, out, errOut)
		}
		return rep.Summary
	}
	first := summary()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	index, err := search.IndexPath(path)
	if err != nil {
		t.Fatal(err)
	}
	stat := func(p string) os.FileInfo {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	before, beforeHash, beforeIndex := stat(path), fileHash(t, path), stat(index)
	again := summary()
	if first["imported"] == 0 || again["unchanged"] != first["imported"] || again["skipped"] != first["skipped"] || again["imported"]+again["appended"] != 0 {
		t.Errorf("re-import summary %v after %v, want every imported file unchanged", again, first)
	}
	after, afterIndex := stat(path), stat(index)
	if fileHash(t, path) != beforeHash || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a re-import with nothing new wrote to the store (modified %v, was %v)", after.ModTime(), before.ModTime())
	}
	if !afterIndex.ModTime().Equal(beforeIndex.ModTime()) || afterIndex.Size() != beforeIndex.Size() {
		t.Errorf("a re-import with nothing new wrote to the search index")
	}
}
