package agents

import (
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
)

func TestBackendTableIsComplete(t *testing.T) {
	bs := Backends()
	if len(bs) < 2 || bs[0] != Claude || bs[1] != Codex {
		t.Fatalf("Backends() = %v, want claude and codex first", bs)
	}
	envs := map[string]bool{}
	for _, d := range Descriptors() {
		if d.Title == "" || d.Command == "" || d.EnvVar == "" || len(d.Models) == 0 || d.Args == nil || d.StreamParser == nil {
			t.Errorf("%s: incomplete descriptor %+v", d.Name, d)
		}
		if envs[d.EnvVar] {
			t.Errorf("%s: env var %s used twice", d.Name, d.EnvVar)
		}
		envs[d.EnvVar] = true
		if _, ok := Lookup(d.Fallback); d.Fallback != "" && !ok {
			t.Errorf("%s: fallback %q is no backend", d.Name, d.Fallback)
		}
		for _, m := range d.Models {
			if got := BackendForModel(m); got != d.Name {
				t.Errorf("BackendForModel(%q) = %s, want %s", m, got, d.Name)
			}
		}
		var p parse.Parser = d.StreamParser("")
		if p == nil {
			t.Errorf("%s: no stream parser", d.Name)
		}
	}
}

func TestBackendOtherIsTheConfiguredFallback(t *testing.T) {
	for _, c := range []struct{ b, want Backend }{{Claude, Codex}, {Codex, Claude}, {"unknown", Codex}} {
		if got := c.b.Other(); got != c.want {
			t.Errorf("%s.Other() = %s, want %s", c.b, got, c.want)
		}
	}
	for _, d := range Descriptors() {
		if o := d.Name.Other(); o == d.Name {
			t.Errorf("%s falls back on itself", d.Name)
		}
	}
	if fallbackModel(Codex) != DefaultCodexModel || fallbackModel(Claude) != "" {
		t.Errorf("fallback models %q %q", fallbackModel(Codex), fallbackModel(Claude))
	}
}

func TestParseBackend(t *testing.T) {
	for _, d := range Descriptors() {
		if b, err := ParseBackend(" " + strings.ToUpper(string(d.Name)) + " "); err != nil || b != d.Name {
			t.Errorf("ParseBackend(%q) = %q, %v", d.Name, b, err)
		}
	}
	_, err := ParseBackend("emacs")
	if err == nil || !strings.Contains(err.Error(), "claude") || !strings.Contains(err.Error(), "codex") {
		t.Errorf("ParseBackend(emacs) error %v does not list the backends", err)
	}
}

func TestExecutablePerBackend(t *testing.T) {
	env := map[string]string{"LAZULI_CODEX": "/env/codex"}
	cfg := Config{Paths: map[Backend]string{Claude: " /set/claude ", Codex: "/set/codex"}, Getenv: func(k string) string { return env[k] }}
	if got := cfg.Executable(Claude); got != "/set/claude" {
		t.Errorf("claude = %q, want the setting", got)
	}
	if got := cfg.Executable(Codex); got != "/env/codex" {
		t.Errorf("codex = %q, want LAZULI_CODEX", got)
	}
	for _, d := range Descriptors()[2:] {
		if got := (Config{Getenv: func(string) string { return "" }}).Executable(d.Name); got != d.Command {
			t.Errorf("%s = %q, want %q on PATH", d.Name, got, d.Command)
		}
	}
}

func TestBackendForModelAndAlias(t *testing.T) {
	for _, c := range []struct{ model, backend, alias string }{
		{"opus", "claude", "opus"}, {"claude-sonnet-4-5-20250929", "claude", "sonnet"},
		{"gpt-5.3-codex", "codex", DefaultCodexModel}, {"codex", "codex", DefaultCodexModel}, {"", "claude", ""},
		// Gemini CLI's init line without --model names its router.
		{"gemini-2.5-flash", "gemini", "gemini-2.5-flash"}, {"auto-gemini-2.5", "gemini", "auto"}, {"auto-gemini-3", "gemini", "auto"},
	} {
		if got := BackendForModel(c.model); string(got) != c.backend {
			t.Errorf("BackendForModel(%q) = %s, want %s", c.model, got, c.backend)
		}
		if got := ModelAlias(c.model); got != c.alias {
			t.Errorf("ModelAlias(%q) = %q, want %q", c.model, got, c.alias)
		}
	}
}

func TestResumeCommandPerBackend(t *testing.T) {
	if got := Claude.ResumeCommand("x"); !slices.Equal(got, []string{"claude", "--resume", "x"}) {
		t.Errorf("claude resume %v", got)
	}
	if got := Codex.ResumeCommand("y"); !slices.Equal(got, []string{"codex", "resume", "y"}) {
		t.Errorf("codex resume %v", got)
	}
	if got := Backend("none").ResumeCommand("z"); got != nil {
		t.Errorf("unknown backend resumes with %v", got)
	}
}

func TestUnexpressedAllNamesEachCLI(t *testing.T) {
	p := Policy{Mode: ModeAsk, Rules: []store.PermissionRule{{Action: ActionAllow, Permission: "Bash", Pattern: "git *"}}}
	got := strings.Join(UnexpressedAll(p), "\n")
	for _, want := range []string{"codex exec cannot ask", "gemini -p cannot ask", "qwen cannot ask",
		"not applied to Codex runs", "not applied to Gemini runs", "not applied to Qwen runs"} {
		if !strings.Contains(got, want) {
			t.Errorf("UnexpressedAll lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "claude") {
		t.Errorf("Claude applies every mode and rule, yet:\n%s", got)
	}
}

// TestSessionBackendAndMenuModel: a usage row's backend beats the guess
// from a model's name, and the menu then offers that backend's entry.
func TestSessionBackendAndMenuModel(t *testing.T) {
	backends := []struct {
		native, usage, model, uuid string
		want                       Backend
	}{
		{"codex", "pi", "sonnet", "", Codex},      // the native record first
		{"", "pi", "claude-sonnet-4-5", "", Pi},   // then the usage row
		{"", "copilot", "gpt-5", "", Copilot},     // a Codex-owned name, Copilot's turn
		{"", "no-such-agent", "gpt-5", "", Codex}, // an unknown backend: the model tells
		{"", "", "claude-sonnet-4-5", "", Claude}, // the model
		{"", "", "", "a-claude-uuid", Claude},     // a Claude session id
		{"", "", "", "", ""},
	}
	for _, c := range backends {
		if got := SessionBackend(c.native, c.usage, c.model, c.uuid); got != c.want {
			t.Errorf("SessionBackend(%q, %q, %q, %q) = %q, want %q", c.native, c.usage, c.model, c.uuid, got, c.want)
		}
	}
	models := []struct {
		model   string
		backend Backend
		want    string
	}{
		{"sonnet", Pi, PiDefault},
		{"", Pi, PiDefault},
		{PiDefault, Pi, PiDefault},
		{"sonnet", Claude, "sonnet"},
		{"sonnet", "", "sonnet"},
		{"sonnet", Codex, DefaultCodexModel},
		{"sonnet", Gemini, "auto"},
		{"gpt-5", Copilot, CopilotDefault},
		{"sonnet", OpenCode, OpenCodeDefault},
		{"sonnet", Qwen, QwenModels[0]},
	}
	for _, c := range models {
		if got := MenuModel(c.model, c.backend); got != c.want {
			t.Errorf("MenuModel(%q, %q) = %q, want %q", c.model, c.backend, got, c.want)
		}
	}
}
