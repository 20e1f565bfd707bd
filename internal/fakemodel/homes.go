package fakemodel

// This file prepares OpenCode, Pi and GitHub Copilot CLI to use the
// server as their model, each on the Anthropic Messages API, in a HOME of
// the test's (see agents' docs/agents/<agent>.md).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// FakeAgentModel is the model the three CLIs are configured with.
const FakeAgentModel = "claude-sonnet-4-5"

// writeJSON writes v as indented JSON to path, creating its folder.
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

// WriteOpenCodeConfig writes OpenCode's global config under home
// (.config/opencode/opencode.json): a provider "fake" on @ai-sdk/anthropic
// at url, priced like Claude Sonnet so runs have a cost, as the default
// model; no autoupdate, no sharing.
func WriteOpenCodeConfig(home, url string) error {
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"model": "fake/" + FakeAgentModel,
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/anthropic", "name": "Fake",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "sk-ant-fake"},
			"models": map[string]any{FakeAgentModel: map[string]any{"name": "Claude Sonnet 4.5 (fake)",
				"cost": map[string]any{"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}}},
		}},
	}
	if err := writeJSON(filepath.Join(home, ".config", "opencode", "opencode.json"), cfg); err != nil {
		return fmt.Errorf("write opencode config: %w", err)
	}
	return nil
}

// WritePiConfig writes Pi's models.json (a provider "fake" on
// anthropic-messages at url, with Sonnet's prices) and settings.json (it
// is the default; retries start after 100 ms) under home/.pi/agent.
func WritePiConfig(home, url string) error {
	dir := filepath.Join(home, ".pi", "agent")
	models := map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": url, "api": "anthropic-messages", "apiKey": "sk-ant-fake",
		"models": []any{map[string]any{"id": FakeAgentModel, "name": "Claude Sonnet 4.5 (fake)",
			"reasoning": false, "input": []string{"text"}, "contextWindow": 200000, "maxTokens": 8192,
			"cost": map[string]any{"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}},
	}}}
	if err := writeJSON(filepath.Join(dir, "models.json"), models); err != nil {
		return fmt.Errorf("write pi models: %w", err)
	}
	// Pi retries a failed request three times from 2 s on; 100 ms keeps an
	// HTTP 500 test short (it still retries).
	settings := map[string]any{"defaultProvider": "fake", "defaultModel": FakeAgentModel,
		"retry": map[string]any{"baseDelayMs": 100}}
	if err := writeJSON(filepath.Join(dir, "settings.json"), settings); err != nil {
		return fmt.Errorf("write pi settings: %w", err)
	}
	return nil
}

// AgentsEnv returns what OpenCode, Pi and Copilot CLI need beside Env:
// XDG folders inside home (OpenCode keeps its config, database and the
// plugin package it installs on first start there), no telemetry or
// update checks, and Copilot's custom provider (BYOK, no GitHub sign-in)
// on the Anthropic API at the server.
func (s *Server) AgentsEnv(home string) []string {
	return []string{
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"OPENCODE_DISABLE_AUTOUPDATE=true", "OPENCODE_DISABLE_SHARE=true",
		"PI_OFFLINE=1", "PI_TELEMETRY=0",
		"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + s.URL, "COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_API_KEY=sk-ant-fake", "COPILOT_MODEL=claude-sonnet-4.5", "COPILOT_DISABLE_TELEMETRY=1",
	}
}

// AgentsHome writes the OpenCode and Pi configs under home and returns
// AgentsEnv(home), to append to Env's.
func (s *Server) AgentsHome(home string) ([]string, error) {
	if err := WriteOpenCodeConfig(home, s.URL); err != nil {
		return nil, err
	}
	if err := WritePiConfig(home, s.URL); err != nil {
		return nil, err
	}
	return s.AgentsEnv(home), nil
}
