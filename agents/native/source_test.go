package native

import (
	"path/filepath"
	"testing"
)

func TestSourceDefaultDirFollowsTheAgentsVariable(t *testing.T) {
	for _, src := range Sources() {
		env := map[string]string{}
		getenv := func(k string) string { return env[k] }
		if got, want := src.DefaultDir("/home/u", getenv), filepath.Join("/home/u", src.HomeDir, src.HistoryDir); got != want {
			t.Errorf("%s: default %q, want %q", src.Agent, got, want)
		}
		env[src.EnvVar] = "/elsewhere"
		want := filepath.Join("/elsewhere", src.HistoryDir)
		if src.EnvIsHome {
			want = filepath.Join("/elsewhere", src.HomeDir, src.HistoryDir)
		}
		if got := src.DefaultDir("/home/u", getenv); got != want {
			t.Errorf("%s: with $%s, %q, want %q", src.Agent, src.EnvVar, got, want)
		}
	}
}

func TestSourcesTable(t *testing.T) {
	srcs := Sources()
	if len(srcs) < 2 || srcs[0].Agent != Claude || srcs[1].Agent != Codex {
		t.Fatalf("Sources() starts %v, want claude, codex", srcs)
	}
	flags := map[string]bool{}
	for _, s := range srcs {
		if s.Flag == "" || flags[s.Flag] || s.Format == "" || s.preview == nil || s.feeder == nil {
			t.Errorf("%s: incomplete or duplicate source %+v", s.Agent, s)
		}
		flags[s.Flag] = true
		if got, ok := sourceForFormat(s.Format); !ok || got != s {
			t.Errorf("%s: format %s maps to %v", s.Agent, s.Format, got)
		}
		if (Session{Agent: s.Agent}).Format() != s.Format {
			t.Errorf("%s: Session.Format is not the source's", s.Agent)
		}
	}
}
