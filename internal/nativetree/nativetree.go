// Package nativetree builds a fake native agent history for tests and
// screenshots: a ~/.claude/projects and a ~/.codex/sessions tree laid out as
// Claude Code and Codex lay out their own, filled with the real transcripts
// of ../shared/fixtures/transcripts (format B and D files).
package nativetree

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// Tree is a built history.
type Tree struct {
	Home      string // the fake home folder
	ClaudeDir string // Home/.claude/projects
	CodexDir  string // Home/.codex/sessions
	// Files maps each fixture file's name to where it was copied.
	Files map[string]string
}

// ForTest builds a tree of the shared transcripts under a temporary home;
// when they are missing the test fails or skips (see internal/fixtures).
func ForTest(tb testing.TB) Tree {
	tb.Helper()
	return ForTestFrom(tb, fixtures.Dir(tb, "transcripts"))
}

// ForTestFrom builds a tree of the transcripts in folder src, which exists,
// under a temporary home.
func ForTestFrom(tb testing.TB, src string) Tree {
	tb.Helper()
	t, err := Build(src, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// Build copies the B_ and D_ fixtures of src into a history under home.
// Claude transcripts go to projects/<encoded cwd>/<sessionId>.jsonl, their
// sub-agents to <sessionId>/subagents/agent-<id>.jsonl (files named
// "…-subagents--agent-…") or beside them (older "…_agent-…" files); Codex
// rollouts to sessions/YYYY/MM/DD/rollout-…-<id>.jsonl.
func Build(src, home string) (Tree, error) {
	t := Tree{Home: home, ClaudeDir: filepath.Join(home, ".claude", "projects"),
		CodexDir: filepath.Join(home, ".codex", "sessions"), Files: map[string]string{}}
	entries, err := os.ReadDir(src)
	if err != nil {
		return t, err
	}
	for _, e := range entries {
		name := e.Name()
		var dst string
		switch {
		case strings.HasPrefix(name, "B_") && strings.HasSuffix(name, ".jsonl"):
			dst, err = t.claudePath(filepath.Join(src, name))
		case strings.HasPrefix(name, "D_") && strings.HasSuffix(name, ".jsonl"):
			dst, err = t.codexPath(filepath.Join(src, name))
		default:
			continue
		}
		if err == nil {
			err = copyFile(filepath.Join(src, name), dst)
		}
		if err != nil {
			return t, fmt.Errorf("%s: %w", name, err)
		}
		t.Files[name] = dst
	}
	return t, nil
}

// head is what the first lines of a fixture say about it.
type head struct {
	sessionID, cwd, codexID, timestamp string
}

func readHead(path string) (head, error) {
	f, err := os.Open(path)
	if err != nil {
		return head{}, err
	}
	defer f.Close()
	var h head
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var o struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Payload   struct {
				ID string `json:"id"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &o) != nil {
			continue
		}
		if h.sessionID == "" {
			h.sessionID = o.SessionID
		}
		if h.cwd == "" {
			h.cwd = o.Cwd
		}
		if h.codexID == "" && o.Type == "session_meta" {
			h.codexID, h.timestamp = o.Payload.ID, o.Timestamp
		}
	}
	return h, sc.Err()
}

// claudePath is where a B_ fixture goes.
func (t Tree) claudePath(path string) (string, error) {
	h, err := readHead(path)
	if err != nil {
		return "", err
	}
	name := filepath.Base(path)
	stem := strings.TrimSuffix(name, ".jsonl")
	base := stem // the original file name: <format>_<source>_<name>
	if parts := strings.SplitN(stem, "_", 3); len(parts) == 3 {
		base = parts[2]
	}
	project := encode(h.cwd)
	if h.cwd == "" {
		project = "-unknown-project"
	}
	switch {
	case strings.Contains(stem, "-subagents--"):
		agent := stem[strings.Index(stem, "-subagents--")+len("-subagents--"):]
		return filepath.Join(t.ClaudeDir, encode(parentCwd(h.cwd)), h.sessionID, "subagents", agent+".jsonl"), nil
	case strings.HasPrefix(base, "agent-"):
		return filepath.Join(t.ClaudeDir, project, base+".jsonl"), nil
	case h.sessionID != "" && !strings.Contains(h.sessionID, " "):
		return filepath.Join(t.ClaudeDir, project, h.sessionID+".jsonl"), nil
	}
	return filepath.Join(t.ClaudeDir, project, base+".jsonl"), nil
}

// parentCwd is the project of a sub-agent that ran in a worktree Claude
// made for it (<project>/.claude/worktrees/agent-…).
func parentCwd(cwd string) string {
	if i := strings.Index(cwd, "/.claude/worktrees/"); i >= 0 {
		return cwd[:i]
	}
	return cwd
}

// codexPath is where a D_ fixture goes.
func (t Tree) codexPath(path string) (string, error) {
	h, err := readHead(path)
	if err != nil {
		return "", err
	}
	name := strings.TrimPrefix(filepath.Base(path), "D_")
	day, clock := "2030/01/01", "2030-01-01T00-00-00"
	if len(h.timestamp) >= 19 && h.timestamp[4] == '-' {
		day, clock = strings.ReplaceAll(h.timestamp[:10], "-", "/"), strings.ReplaceAll(h.timestamp[:19], ":", "-")
	}
	if i := strings.Index(name, "rollout-"); i >= 0 {
		name = name[i:]
	} else {
		name = "rollout-" + clock + "-" + h.codexID + ".jsonl"
	}
	return filepath.Join(t.CodexDir, day, name), nil
}

// encode is Claude's project folder name for a cwd.
func encode(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("%s: %w", dst, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
