package fakemodel

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// DefaultPath is the PATH of Env when the test's own PATH is empty.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// Env returns the complete environment for running claude or codex
// against the server with the given HOME (see the harness doc): the API
// endpoints and fake keys, the switches that stop all nonessential
// traffic, IS_SANDBOX=1 (claude refuses --dangerously-skip-permissions as
// root without it), one API retry, and HTTP(S)_PROXY pointing at the
// server so any outside connection is refused and recorded. PATH is the
// test's own. Append KEY=VALUE entries to override: os/exec uses the last
// value of a duplicated key.
func (s *Server) Env(home string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = DefaultPath
	}
	user := os.Getenv("USER")
	if user == "" {
		user = "root"
	}
	return []string{
		"HOME=" + home,
		"PATH=" + path,
		"USER=" + user,
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"TERM=dumb",
		"HTTPS_PROXY=" + s.URL, "HTTP_PROXY=" + s.URL,
		"https_proxy=" + s.URL, "http_proxy=" + s.URL,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		// claude
		"ANTHROPIC_BASE_URL=" + s.URL,
		"ANTHROPIC_API_KEY=sk-ant-fake",
		"IS_SANDBOX=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_MAX_RETRIES=1",
		// codex (with the config WriteCodexConfig writes)
		"FAKE_KEY=x",
	}
}

// CodexConfig returns the text of $HOME/.codex/config.toml for a fake
// Responses provider at baseURL (the server's URL, without /v1): model
// gpt-5.5 (whose bundled metadata gives codex its full tool set, with
// apply_patch), one request and one stream retry, and the switches that
// stop codex's outside traffic.
func CodexConfig(baseURL string) string {
	// Top-level keys must come before the first [table].
	return fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_KEY"
request_max_retries = 1
stream_max_retries = 1

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
plugin_discovery_prefetch = false
apps = false
remote_models = false
`, strings.TrimSuffix(baseURL, "/")+"/v1")
}

// WriteCodexConfig writes CodexConfig(baseURL) to home/.codex/config.toml.
func WriteCodexConfig(home, baseURL string) error {
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write codex config: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(CodexConfig(baseURL)), 0o644); err != nil {
		return fmt.Errorf("write codex config: %w", err)
	}
	return nil
}

// Home prepares home for both CLIs (creating it and writing the codex
// config) and returns Env(home).
func (s *Server) Home(home string) ([]string, error) {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, fmt.Errorf("make home: %w", err)
	}
	if err := WriteCodexConfig(home, s.URL); err != nil {
		return nil, err
	}
	return s.Env(home), nil
}

// FindCLI returns the path of the claude or codex executable: the
// LAZULI_CLAUDE / LAZULI_CODEX variable if set, else name on PATH, else
// the one scripts/install-clis.sh installs into its cache folder
// (LAZULI_CLI_CACHE, default ~/.cache/lazuli/cli). It returns "" when
// there is none, or when the variable names no executable.
func FindCLI(name string) string {
	if v := strings.TrimSpace(os.Getenv("LAZULI_" + strings.ToUpper(name))); v != "" {
		p, err := exec.LookPath(v)
		if err != nil {
			return ""
		}
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	cache := os.Getenv("LAZULI_CLI_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache", "lazuli", "cli")
	}
	p, err := exec.LookPath(filepath.Join(cache, "node_modules", ".bin", name))
	if err != nil {
		return ""
	}
	return p
}

// E2ERequiredEnv set to 1 (as CI does) makes the end-to-end tests run
// whatever else is asked: a missing CLI or fixture fails them, and -short
// neither skips nor shortens them.
const E2ERequiredEnv = "LAZULI_E2E_REQUIRED"

// E2ERequired reports whether LAZULI_E2E_REQUIRED=1.
func E2ERequired() bool { return os.Getenv(E2ERequiredEnv) == "1" }

// Short reports whether an end-to-end test may do less work: with -short,
// unless LAZULI_E2E_REQUIRED=1.
func Short() bool { return testing.Short() && !E2ERequired() }

// cliDecision is what a test that needs a real agent CLI does.
type cliDecision int

const (
	cliRuns        cliDecision = iota
	cliSkipShort               // -short, and the e2e tests are not required
	cliSkipMissing             // no CLI, and the e2e tests are not required
	cliFailMissing             // no CLI, and LAZULI_E2E_REQUIRED=1
)

// decideCLI decides what NeedCLI does: LAZULI_E2E_REQUIRED=1 wins over
// -short (CI passes TESTFLAGS from its environment), so a required test
// runs, or fails when its CLI is missing.
func decideCLI(short, required, found bool) cliDecision {
	switch {
	case required && found:
		return cliRuns
	case required:
		return cliFailMissing
	case short:
		return cliSkipShort
	case found:
		return cliRuns
	default:
		return cliSkipMissing
	}
}

// NeedCLI returns the path of the real claude or codex CLI (see FindCLI)
// for a test. Without it, or with -short, the test is skipped; with
// LAZULI_E2E_REQUIRED=1 (CI) it always runs, and a missing CLI fails it.
func NeedCLI(t testing.TB, name string) string {
	t.Helper()
	p := FindCLI(name)
	missing := func() string {
		return fmt.Sprintf("%s not found (set LAZULI_%s, put it on PATH or run scripts/install-clis.sh)", name, strings.ToUpper(name))
	}
	switch decideCLI(testing.Short(), E2ERequired(), p != "") {
	case cliSkipShort:
		t.Skip("real CLI test: skipped with -short (" + E2ERequiredEnv + "=1 runs it)")
	case cliSkipMissing:
		t.Skip(missing())
	case cliFailMissing:
		t.Fatal(missing() + "; " + E2ERequiredEnv + "=1 makes this a failure")
	}
	return p
}

// GeminiSettings is $HOME/.gemini/settings.json for Gemini CLI against the
// server: API-key auth (GOOGLE_GEMINI_BASE_URL alone selects an auth type
// it then rejects), two attempts per request, no telemetry, usage
// statistics or update checks, and a named model: with its default,
// "auto", Gemini CLI first asks the model to classify each prompt.
const GeminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true, "maxAttempts": 2},
  "ui": {"hideTips": true},
  "model": {"name": "gemini-2.5-pro"}
}`

// GeminiEnv writes GeminiSettings under home and returns the environment
// entries that point Gemini CLI at the server (append them to Env).
func GeminiEnv(s *Server, home string) ([]string, error) {
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write gemini settings: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(GeminiSettings), 0o644); err != nil {
		return nil, fmt.Errorf("write gemini settings: %w", err)
	}
	tmp := filepath.Join(home, ".cache", "tmp") // its crash reports go to the temp folder
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("make gemini temp folder: %w", err)
	}
	return []string{"GOOGLE_GEMINI_BASE_URL=" + s.URL, "GEMINI_API_KEY=fake-gemini-key",
		"GEMINI_CLI_NO_RELAUNCH=true", "NO_UPDATE_NOTIFIER=1", "GEMINI_SANDBOX=false", "TMPDIR=" + tmp}, nil
}

// QwenEnv writes $HOME/.qwen/settings.json for Qwen Code against the
// server (OpenAI-compatible auth, no telemetry or usage statistics) and
// returns the environment entries that point it at the server's Chat
// Completions (append them to Env).
func QwenEnv(s *Server, home string) ([]string, error) {
	dir := filepath.Join(home, ".qwen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write qwen settings: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(QwenSettings), 0o644); err != nil {
		return nil, fmt.Errorf("write qwen settings: %w", err)
	}
	return []string{"OPENAI_BASE_URL=" + s.URL + "/v1", "OPENAI_API_KEY=fake-openai-key", "OPENAI_MODEL=qwen3-coder-plus",
		"NO_UPDATE_NOTIFIER=1"}, nil
}

// QwenSettings is $HOME/.qwen/settings.json for Qwen Code against the
// server.
const QwenSettings = `{
  "security": {"auth": {"selectedType": "openai"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "model": {"name": "qwen3-coder-plus"}
}`
