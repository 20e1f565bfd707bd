package native

// This file is the table of the agents whose own history Lazuli imports:
// adding an agent's history means adding its Source (a source_<agent>.go
// file whose init calls addSource) with its previewer and feeder.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lazuli-app/lazuli/agents/claude"
	"github.com/lazuli-app/lazuli/agents/codex"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// The agents whose native history Lazuli imports first, as recorded in
// the store (the others are in their Source files).
const (
	Claude = "claude"
	Codex  = "codex"
)

// Source is one agent's native history: where it lives, which files in
// it are transcripts, and how a transcript is previewed and read.
type Source struct {
	Agent string // as recorded in the store: "claude"
	Title string // "Claude Code"
	Order int    // position in scans and lists
	// Flag is import-native's flag that names the history folder
	// ("claude-dir").
	Flag string
	// EnvVar is the agent's own variable that moves its home folder
	// (CLAUDE_CONFIG_DIR); HomeDir is that home below the user's home
	// (".claude"), and HistoryDir the history folder below it ("projects").
	EnvVar, HomeDir, HistoryDir string
	// EnvIsHome says EnvVar names a folder that stands for the user's
	// home (Gemini CLI's GEMINI_CLI_HOME), not the agent's own folder.
	EnvIsHome bool
	// Format is the transcripts' format.
	Format parse.Format
	// inFileSubagents says a transcript holds its sub-agents' work too
	// (Copilot CLI's events.jsonl), imported as sessions of their own.
	inFileSubagents bool
	// isTranscript reports whether the file at path (in the folder) is a transcript;
	// nil means a *.jsonl file.
	isTranscript func(path string) bool
	// preview reads the head of one transcript under root.
	preview func(n *Session, root string) previewer
	// feeder reads a transcript for import.
	feeder func(opts parse.Options) nativeFeeder
	// prepare, when set, turns the history folder into the folder of
	// transcript files to scan (OpenCode's database is mirrored as one
	// file per session in Lazuli's cache); nil scans the folder itself.
	prepare func(ctx context.Context, dir string) (string, error)
	// fill, when set, completes the previews of the sessions found in the
	// folder from a second source beside it (Copilot CLI's session store),
	// and returns the sessions it holds that the folder lacks, mirrored as
	// transcripts that scan previews; a Skip says that source could not be
	// read.
	fill func(ctx context.Context, dir string, sessions []Session, scan func(dir string) ([]Session, error)) ([]Session, *Skip, error)
}

// sources is the table, filled by init functions, read-only afterwards.
var sources = map[string]*Source{}

// addSource adds s to the table; it is called from init only.
func addSource(s *Source) {
	if _, dup := sources[s.Agent]; dup {
		panic("native: source added twice: " + s.Agent)
	}
	sources[s.Agent] = s
}

func init() {
	addSource(&Source{Agent: Claude, Title: "Claude Code", Order: 0, Flag: "claude-dir",
		EnvVar: "CLAUDE_CONFIG_DIR", HomeDir: ".claude", HistoryDir: "projects",
		Format:  parse.FormatClaudeTranscript,
		preview: func(n *Session, root string) previewer { return newClaudePreview(n, root) },
		feeder: func(opts parse.Options) nativeFeeder {
			return &claudeFeeder{p: claude.NewTranscriptParser(opts)}
		},
	})
	addSource(&Source{Agent: Codex, Title: "Codex", Order: 1, Flag: "codex-dir",
		EnvVar: "CODEX_HOME", HomeDir: ".codex", HistoryDir: "sessions",
		Format: parse.FormatCodexRollout,
		preview: func(n *Session, _ string) previewer {
			return &codexPreview{n: n, p: codex.NewRolloutParser(parse.Options{})}
		},
		feeder: func(opts parse.Options) nativeFeeder { return &codexFeeder{p: codex.NewRolloutParser(opts)} },
	})
}

// Sources lists every agent's history source in order.
func Sources() []*Source {
	out := make([]*Source, 0, len(sources))
	for _, s := range sources {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Source) int { return a.Order - b.Order })
	return out
}

// SourceOf returns the source of agent's history.
func SourceOf(agent string) (*Source, bool) {
	s, ok := sources[agent]
	return s, ok
}

// sourceOf returns agent's source, or Claude's for an unknown agent.
func sourceOf(agent string) *Source {
	if s, ok := sources[agent]; ok {
		return s
	}
	return sources[Claude]
}

// sourceForFormat returns the source whose transcripts are in format f.
func sourceForFormat(f parse.Format) (*Source, bool) {
	for _, s := range sources {
		if s.Format == f {
			return s, true
		}
	}
	return nil, false
}

// transcript reports whether the file at path (in the history folder)
// is one of the source's transcripts.
func (s *Source) transcript(path string) bool {
	if s.isTranscript != nil {
		return s.isTranscript(path)
	}
	return strings.HasSuffix(path, ".jsonl")
}

// DefaultDir returns where the agent keeps its history: $EnvVar/HistoryDir
// ($EnvVar/HomeDir/HistoryDir when EnvIsHome), else ~/HomeDir/HistoryDir;
// getenv nil means os.Getenv.
func (s *Source) DefaultDir(home string, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	v := ""
	if s.EnvVar != "" {
		v = getenv(s.EnvVar)
	}
	switch {
	case v == "":
		return filepath.Join(home, s.HomeDir, s.HistoryDir)
	case s.EnvIsHome:
		return filepath.Join(v, s.HomeDir, s.HistoryDir)
	}
	return filepath.Join(v, s.HistoryDir)
}

// Dirs are history folders by agent; an agent missing or "" is skipped.
type Dirs map[string]string

// DefaultDirs returns where every agent keeps its history (see
// Source.DefaultDir): for Claude $CLAUDE_CONFIG_DIR/projects (default
// ~/.claude/projects), for Codex $CODEX_HOME/sessions (default
// ~/.codex/sessions), and so on.
func DefaultDirs() (Dirs, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("find the home folder: %w", err)
	}
	out := Dirs{}
	for _, s := range Sources() {
		out[s.Agent] = s.DefaultDir(home, nil)
	}
	return out, nil
}
