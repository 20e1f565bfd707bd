package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
)

// Backend names an agent CLI, as the store records it ("claude", "codex").
type Backend string

// Descriptor is everything Lazuli needs to know of one backend: adding an
// agent means adding its Descriptor to the table (a backend_<name>.go file
// whose init calls register) and its parser package.
type Descriptor struct {
	Name  Backend // as stored in events and native-import records
	Title string  // display name: "Claude", "Gemini CLI"
	Order int     // position in menus and lists
	// Command is the executable looked up on PATH when neither the
	// environment variable nor the settings name one.
	Command string
	// EnvVar names the environment variable that overrides the executable
	// (LAZULI_CLAUDE); it wins over the settings.
	EnvVar string
	// Models are the model menu's entries, the first the backend's default.
	Models []string
	// FallbackModel is the model the backend runs with when it stands in
	// for another (spec §5.1); "" lets the CLI choose.
	FallbackModel string
	// Fallback is the backend that stands in for this one when it fails
	// (spec §5.1: claude ↔ codex).
	Fallback Backend
	// OwnsModel reports whether a model name not in Models belongs to the
	// backend (gpt-* is Codex's); nil means only Models.
	OwnsModel func(model string) bool
	// Args builds the CLI's arguments (after the executable) for one run,
	// and says whether the prompt goes to stdin.
	Args func(inv Invocation) (args []string, promptOnStdin bool)
	// StreamParser returns the parser of the CLI's headless output; model
	// is the model the run asked for ("" for the CLI's default).
	StreamParser func(model string) parse.Parser
	// Resume is the shell command (without quoting of id) that resumes
	// the agent's own session id in its CLI.
	Resume func(id string) []string
	// Unexpressed lists, one line each, what of a permission policy the
	// CLI cannot apply; nil means it applies all of it.
	Unexpressed func(p Policy) []string
	// RunEnv returns the variables added to the environment of a run
	// given MCP servers (inv.MCPServers, never a sandboxed run), for a CLI
	// that takes them there; files they name go in scratch, a folder of
	// the run's own removed once the CLI has exited. Nil means none.
	RunEnv func(inv Invocation, scratch string) ([]string, error)
	// NoMCP, when set, says why the CLI's runs cannot be given Lazuli's
	// MCP servers (the project's history): it has no MCP, or takes servers
	// only from files of the user's or the project's.
	NoMCP string
	// MeasuresDuration is set when the CLI reports no run duration, so
	// Lazuli times the run itself.
	MeasuresDuration bool
}

// descriptors is the backend table, filled by the backend files' init
// functions and read-only afterwards.
var descriptors = map[Backend]*Descriptor{}

// register adds d to the table; it is called from init only.
func register(d *Descriptor) {
	if _, dup := descriptors[d.Name]; dup {
		panic("agents: backend registered twice: " + string(d.Name))
	}
	descriptors[d.Name] = d
}

// Lookup returns the descriptor of b.
func Lookup(b Backend) (*Descriptor, bool) {
	d, ok := descriptors[b]
	return d, ok
}

// Backends lists every backend in menu order.
func Backends() []Backend {
	out := make([]Backend, 0, len(descriptors))
	for b := range descriptors {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b Backend) int { return descriptors[a].Order - descriptors[b].Order })
	return out
}

// BackendNames lists every backend's name in menu order.
func BackendNames() []string {
	bs := Backends()
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

// Descriptors lists every backend's descriptor in menu order.
func Descriptors() []*Descriptor {
	var out []*Descriptor
	for _, b := range Backends() {
		out = append(out, descriptors[b])
	}
	return out
}

// desc returns b's descriptor, or Claude's for an unknown backend (the
// default backend of spec §5.1).
func (b Backend) desc() *Descriptor {
	if d, ok := descriptors[b]; ok {
		return d
	}
	return descriptors[Claude]
}

// ParseBackend returns the backend named s.
func ParseBackend(s string) (Backend, error) {
	b := Backend(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := descriptors[b]; ok {
		return b, nil
	}
	names := make([]string, 0, len(descriptors))
	for _, b := range Backends() {
		names = append(names, string(b))
	}
	return "", fmt.Errorf("unknown backend %q (want %s)", s, strings.Join(names, ", "))
}

// Other returns b's configured fallback backend (claude ↔ codex, spec
// §5.1; Claude for a backend that names none).
func (b Backend) Other() Backend {
	if f := b.desc().Fallback; f != "" {
		return f
	}
	if b == Claude {
		return Codex
	}
	return Claude
}

// Title is the backend's display name.
func (b Backend) Title() string {
	if d, ok := descriptors[b]; ok {
		return d.Title
	}
	return string(b)
}

// envVar is the environment variable that overrides b's executable.
func (b Backend) envVar() string { return b.desc().EnvVar }

// ResumeCommand returns the command line (words, unquoted) that resumes
// the agent's own session id in b's CLI; nil when b has none.
func (b Backend) ResumeCommand(id string) []string {
	d, ok := descriptors[b]
	if !ok || d.Resume == nil {
		return nil
	}
	return d.Resume(id)
}

// NoMCP says why b's runs cannot be given Lazuli's MCP servers; "" when
// they are.
func (b Backend) NoMCP() string { return b.desc().NoMCP }

// Unexpressed lists, one line each, what of p b's CLI cannot apply.
func (b Backend) Unexpressed(p Policy) []string {
	if d := b.desc(); d.Unexpressed != nil {
		return d.Unexpressed(p)
	}
	return nil
}

// Models returns b's model menu entries.
func (b Backend) Models() []string { return b.desc().Models }

// fallbackModel is the model b runs with when it stands in for another
// backend (spec §5.1): gpt-5.5 for Codex, the CLI's default for Claude.
func fallbackModel(b Backend) string { return b.desc().FallbackModel }

// newStreamParser returns the parser of b's live output.
func newStreamParser(b Backend, model string) parse.Parser { return b.desc().StreamParser(model) }

// BackendForModel returns the backend that runs model: the backend whose
// menu lists it, else the one that owns its name (a name starting with
// "gpt-" or equal to "codex" is Codex), else Claude (spec §5.1).
func BackendForModel(model string) Backend {
	ds := Descriptors()
	for _, d := range ds {
		if slices.Contains(d.Models, model) {
			return d.Name
		}
	}
	for _, d := range ds {
		if d.OwnsModel != nil && d.OwnsModel(model) {
			return d.Name
		}
	}
	return Claude
}

// ModelAlias maps a model name as an Init event reports it to the pool
// name the menu shows (spec §5.8 step 6): an exact pool name, else the
// Claude family it contains, else for a name another backend owns (any
// gpt-* or codex model is Codex's) that backend's fallback model.
// It returns "" when nothing matches.
func ModelAlias(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	ds := Descriptors()
	for _, d := range ds {
		if slices.Contains(d.Models, m) {
			return m
		}
	}
	for _, p := range ClaudeModels {
		if strings.Contains(m, p) {
			return p
		}
	}
	for _, d := range ds {
		if d.OwnsModel != nil && d.OwnsModel(m) && d.FallbackModel != "" {
			return d.FallbackModel
		}
	}
	return ""
}

// Config says which executables run the backends.
type Config struct {
	// Paths are the executables from the settings, by backend; a missing
	// or "" path means the backend's command on PATH. Each backend's
	// LAZULI_* environment variable wins over its path.
	Paths map[Backend]string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// Executable returns the command that runs b: the LAZULI_* variable, else
// the configured path, else the backend's command (looked up on PATH).
func (c Config) Executable(b Backend) string {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := strings.TrimSpace(getenv(b.envVar())); v != "" {
		return v
	}
	if v := strings.TrimSpace(c.Paths[b]); v != "" {
		return v
	}
	if d, ok := descriptors[b]; ok && d.Command != "" {
		return d.Command
	}
	return string(b)
}

// ErrCLINotFound reports an agent executable that does not exist or cannot
// be run.
var ErrCLINotFound = errors.New("agent CLI not found")

// ErrSlowVersion reports a CLI that was found and started but did not
// answer --version within Detect's wait: on a busy machine a Node CLI can
// take that long to start. It says nothing against running the CLI.
var ErrSlowVersion = errors.New("no answer in time")

// CLIInfo is what Detect found out about a backend's executable.
type CLIInfo struct {
	Backend Backend
	Command string // as configured: a name or a path
	Path    string // resolved path; "" when not found
	Version string // first line of `--version`; "" when not found
	Err     error  // nil when the CLI answered --version
}

// versionWait is how long Detect waits for --version.
var versionWait = 15 * time.Second

// Detect resolves b's executable and asks it for its version, waiting at
// most versionWait. The CLI runs in a process group of its own, as an
// agent does, and nothing of it outlives Detect: an npm launcher's child
// (the CLI's own binary, which may be unpacking itself) would survive a
// kill of the launcher alone when ctx ends (Lazuli closing).
func Detect(ctx context.Context, cfg Config, b Backend) CLIInfo {
	info := CLIInfo{Backend: b, Command: cfg.Executable(b)}
	path, err := resolveExecutable(info.Command, b)
	if err != nil {
		info.Err = err
		return info
	}
	info.Path = path
	ctx, cancel := context.WithTimeout(ctx, versionWait)
	defer cancel()
	cmd := exec.Command(path, "--version")
	cmd.Env = os.Environ()
	var out bytes.Buffer
	cmd.Stdout = &out
	setProcessGroup(cmd)
	cmd.WaitDelay = time.Second // a straggler holding stdout open
	g, err := startGroup(cmd)
	if err == nil {
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err = <-exited:
		case <-ctx.Done():
			g.kill()
			err = <-exited
		}
		g.release()
	}
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		info.Err = fmt.Errorf("%s --version: %w", info.Command, ErrSlowVersion)
		return info
	}
	if err != nil {
		info.Err = fmt.Errorf("%s --version failed: %w", info.Command, err)
		return info
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	info.Version = strings.TrimSpace(string(line))
	return info
}

// resolveExecutable finds b's command on PATH (or checks the path it names).
func resolveExecutable(command string, b Backend) (string, error) {
	path, err := exec.LookPath(command)
	if err != nil {
		return "", fmt.Errorf("%w: %s (install it, or set its path in Agent settings or %s)",
			ErrCLINotFound, command, b.envVar())
	}
	return path, nil
}

// SessionBackend names the backend of a stored session: the agent whose
// native history it was imported from (native, "" when none), else the
// backend its last usage row names (usage: store.Facets.Backend, set only
// when no model was set after that row; the parser that read the turn
// knew its agent, while a model name is a guess: Pi runs Claude's models,
// Copilot and OpenCode too), else the backend of its model, else Claude
// when it records a Claude session id; "" when none of these is known.
func SessionBackend(native, usage, model, claudeUUID string) Backend {
	if native != "" {
		return Backend(native)
	}
	if usage != "" {
		if b, err := ParseBackend(usage); err == nil {
			return b
		}
	}
	switch {
	case model == "" && claudeUUID != "":
		return Claude
	case model == "":
		return ""
	}
	return BackendForModel(model)
}

// MenuModel is the model the menu selects for a session whose agent is b
// (SessionBackend; "" when not known) and whose model is model (a menu
// name, see SessionModel): model when it is b's, else b's default entry.
// A Pi session that ran a Claude model continues on Pi, not on Claude.
func MenuModel(model string, b Backend) string {
	if b == "" || BackendForModel(model) == b {
		return model
	}
	d := b.desc()
	switch {
	case d.FallbackModel != "":
		return d.FallbackModel
	case len(d.Models) > 0:
		return d.Models[0]
	}
	return model
}

// UnexpressedAll lists, one line each, what of p each backend's CLI
// cannot apply, backend by backend in menu order (each line names its
// CLI).
func UnexpressedAll(p Policy) []string {
	var out []string
	for _, b := range Backends() {
		out = append(out, b.Unexpressed(p)...)
	}
	return out
}
