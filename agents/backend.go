package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/claude"
	"github.com/lazuli-app/lazuli/agents/codex"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// Backend names an agent CLI.
type Backend string

// The two backends Lazuli drives.
const (
	Claude Backend = "claude"
	Codex  Backend = "codex"
)

// Backends lists the backends in menu order.
var Backends = []Backend{Claude, Codex}

// ParseBackend returns the backend named s ("claude" or "codex").
func ParseBackend(s string) (Backend, error) {
	switch Backend(strings.ToLower(strings.TrimSpace(s))) {
	case Claude:
		return Claude, nil
	case Codex:
		return Codex, nil
	}
	return "", fmt.Errorf("unknown backend %q (want claude or codex)", s)
}

// Other returns the other backend, the fallback of b.
func (b Backend) Other() Backend {
	if b == Codex {
		return Claude
	}
	return Codex
}

// Title is the backend's display name.
func (b Backend) Title() string {
	if b == Codex {
		return "Codex"
	}
	return "Claude"
}

// envVar is the environment variable that overrides b's executable.
func (b Backend) envVar() string {
	if b == Codex {
		return "LAZULI_CODEX"
	}
	return "LAZULI_CLAUDE"
}

// DefaultCodexModel is Codex's default model, and the model a Codex
// fallback runs with (spec §5.1).
const DefaultCodexModel = "gpt-5.5"

// fallbackModel is the model b runs with when it stands in for the other
// backend (spec §5.1): gpt-5.5 for Codex, the CLI's default for Claude.
func fallbackModel(b Backend) string {
	if b == Codex {
		return DefaultCodexModel
	}
	return ""
}

// newStreamParser returns the parser of b's live output; a Codex parser
// reports model (the CLI's default when "") in its Init.
func newStreamParser(b Backend, model string) parse.Parser {
	if b == Codex {
		if model == "" {
			model = DefaultCodexModel
		}
		return codex.NewExecParser(parse.Options{Model: model})
	}
	return claude.NewStreamParser(parse.Options{Model: model})
}

// ClaudeModels and CodexModels are the model pools of spec §5.1.
var (
	ClaudeModels = []string{"opus", "sonnet", "haiku"}
	CodexModels  = []string{"gpt-5.5", "gpt-5.5-pro", "gpt-5.4", "gpt-5.4-pro", "gpt-5.4-mini",
		"gpt-5.4-nano", "gpt-5-mini", "gpt-5-nano", "gpt-5", "gpt-4.1"}
)

// BackendForModel returns the backend that runs model: a name starting
// with "gpt-" or equal to "codex" is Codex, anything else Claude (spec §5.1).
func BackendForModel(model string) Backend {
	if strings.HasPrefix(model, "gpt-") || model == "codex" {
		return Codex
	}
	return Claude
}

// ModelAlias maps a model name as an Init event reports it to the pool
// name the menu shows (spec §5.8 step 6): an exact pool name, else the
// Claude family it contains, else any gpt-* or codex model is gpt-5.5.
// It returns "" when nothing matches.
func ModelAlias(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	for _, pool := range [][]string{ClaudeModels, CodexModels} {
		for _, p := range pool {
			if m == p {
				return p
			}
		}
	}
	for _, p := range ClaudeModels {
		if strings.Contains(m, p) {
			return p
		}
	}
	if strings.HasPrefix(m, "gpt-") || m == "codex" {
		return DefaultCodexModel
	}
	return ""
}

// Config says which executables run the backends.
type Config struct {
	// ClaudePath and CodexPath are the executables from the settings;
	// "" means `claude` / `codex` on PATH. The LAZULI_CLAUDE and
	// LAZULI_CODEX environment variables win over both.
	ClaudePath string
	CodexPath  string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// Executable returns the command that runs b: the LAZULI_* variable, else
// the configured path, else the backend's name (looked up on PATH).
func (c Config) Executable(b Backend) string {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := strings.TrimSpace(getenv(b.envVar())); v != "" {
		return v
	}
	configured := c.ClaudePath
	if b == Codex {
		configured = c.CodexPath
	}
	if v := strings.TrimSpace(configured); v != "" {
		return v
	}
	return string(b)
}

// ErrCLINotFound reports an agent executable that does not exist or cannot
// be run.
var ErrCLINotFound = errors.New("agent CLI not found")

// CLIInfo is what Detect found out about a backend's executable.
type CLIInfo struct {
	Backend Backend
	Command string // as configured: a name or a path
	Path    string // resolved path; "" when not found
	Version string // first line of `--version`; "" when not found
	Err     error  // nil when the CLI answered --version
}

// Detect resolves b's executable and asks it for its version, waiting at
// most 15 seconds.
func Detect(ctx context.Context, cfg Config, b Backend) CLIInfo {
	info := CLIInfo{Backend: b, Command: cfg.Executable(b)}
	path, err := resolveExecutable(info.Command)
	if err != nil {
		info.Err = err
		return info
	}
	info.Path = path
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = os.Environ()
	setProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		info.Err = fmt.Errorf("%s --version failed: %w", info.Command, err)
		return info
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(out), []byte("\n"))
	info.Version = strings.TrimSpace(string(line))
	return info
}

// resolveExecutable finds command on PATH (or checks the path it names).
func resolveExecutable(command string) (string, error) {
	path, err := exec.LookPath(command)
	if err != nil {
		return "", fmt.Errorf("%w: %s (install it, or set its path in Agent settings or LAZULI_CLAUDE / LAZULI_CODEX)",
			ErrCLINotFound, command)
	}
	return path, nil
}
