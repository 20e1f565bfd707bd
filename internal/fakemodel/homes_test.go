package fakemodel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgentsHome(t *testing.T) {
	s := New(nil)
	defer s.Close()
	home := t.TempDir()
	env, err := s.AgentsHome(home)
	if err != nil {
		t.Fatal(err)
	}
	var oc struct {
		Model    string
		Provider map[string]struct {
			Options struct{ BaseURL string }
		}
	}
	b, err := os.ReadFile(filepath.Join(home, ".config", "opencode", "opencode.json"))
	if err != nil || json.Unmarshal(b, &oc) != nil || oc.Model != "fake/"+FakeAgentModel || oc.Provider["fake"].Options.BaseURL != s.URL+"/v1" {
		t.Errorf("opencode.json = %s (%v)", b, err)
	}
	b, err = os.ReadFile(filepath.Join(home, ".pi", "agent", "models.json"))
	if err != nil || !strings.Contains(string(b), `"baseUrl": "`+s.URL+`"`) {
		t.Errorf("models.json = %s (%v)", b, err)
	}
	joined := strings.Join(env, "\n")
	for _, want := range []string{"COPILOT_PROVIDER_BASE_URL=" + s.URL, "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")} {
		if !strings.Contains(joined, want) {
			t.Errorf("env lacks %s", want)
		}
	}
}
