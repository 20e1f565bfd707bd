package clicapture

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

// cliCache is where scripts/install-clis.sh installs the CLIs.
func cliBin(name string) string {
	if v := os.Getenv("LAZULI_" + strings.ToUpper(name)); v != "" {
		return v
	}
	cache := os.Getenv("LAZULI_CLI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "lazuli", "cli")
	}
	return filepath.Join(cache, "node_modules", ".bin", name)
}

// baseEnv is the environment every CLI starts from: the temporary HOME,
// PATH, a C.UTF-8 locale and bash.
func baseEnv(home string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = fakemodel.DefaultPath
	}
	return []string{"HOME=" + home, "PATH=" + path, "USER=root", "LANG=C.UTF-8", "SHELL=/bin/bash", "TERM=dumb",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// openCodeHome writes OpenCode's global config: a provider "fake" on the
// Anthropic Messages API at url, its one model, and no autoupdate or share.
func openCodeHome(home, url string) ([]string, error) {
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"model":      "fake/claude-sonnet-4-5",
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/anthropic", "name": "Fake",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "sk-ant-fake"},
			"models": map[string]any{"claude-sonnet-4-5": map[string]any{"name": "Claude Sonnet 4.5 (fake)",
				"cost": map[string]any{"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}}},
		}},
	}
	if err := writeJSON(filepath.Join(home, ".config", "opencode", "opencode.json"), cfg); err != nil {
		return nil, fmt.Errorf("write opencode config: %w", err)
	}
	return append(baseEnv(home), "OPENCODE_DISABLE_AUTOUPDATE=true", "OPENCODE_DISABLE_SHARE=true"), nil
}

// piHome writes Pi's models.json: a provider "fake" on the Anthropic
// Messages API at url.
func piHome(home, url string) ([]string, error) {
	models := map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": url, "api": "anthropic-messages", "apiKey": "sk-ant-fake",
		"models": []any{map[string]any{"id": "claude-sonnet-4-5", "name": "Claude Sonnet 4.5 (fake)",
			"reasoning": false, "input": []string{"text"}, "contextWindow": 200000, "maxTokens": 8192,
			"cost": map[string]any{"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}},
	}}}
	if err := writeJSON(filepath.Join(home, ".pi", "agent", "models.json"), models); err != nil {
		return nil, fmt.Errorf("write pi models: %w", err)
	}
	return append(baseEnv(home), "PI_OFFLINE=1", "PI_TELEMETRY=0"), nil
}

// copilotHome returns Copilot CLI's environment for its custom provider
// (BYOK) on the Anthropic Messages API at url: no GitHub sign-in.
func copilotHome(home, url string) ([]string, error) {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	return append(baseEnv(home), "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+url,
		"COPILOT_PROVIDER_TYPE=anthropic", "COPILOT_PROVIDER_API_KEY=sk-ant-fake",
		"COPILOT_MODEL=claude-sonnet-4.5", "COPILOT_DISABLE_TELEMETRY=1"), nil
}
