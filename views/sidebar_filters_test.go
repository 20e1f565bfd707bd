package views

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// sampleFacets gives sampleGroups' sessions agents, models and failures.
func sampleFacets() map[SessionRef]SessionFacets {
	return map[SessionRef]SessionFacets{
		{StorePath: "/p/a.azs", ID: 4}: {Agent: AgentClaude, Model: "claude-opus-4-5"},
		{StorePath: "/p/a.azs", ID: 3}: {Agent: AgentCodex, Model: "gpt-5-codex"},
		{StorePath: "/p/a.azs", ID: 2}: {Agent: AgentClaude, Model: "claude-sonnet-4-5", Failed: true},
		{StorePath: "/p/b.azs", ID: 1}: {Agent: AgentCodex, Model: "gpt-5-codex"},
	}
}

// shownRows lists the rows shown: titles, with headers as "# title (count)".
func shownRows(s *Sidebar) []string {
	var out []string
	for _, r := range s.rows {
		if r.header {
			out = append(out, "# "+r.title+" ("+r.msgs+")")
		} else {
			out = append(out, r.title+"/"+r.agent)
		}
	}
	return out
}

func TestSidebarFilters(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	s.SetFacets(sampleFacets())
	day := func(d string) time.Time { t, _ := parseDay(d); return t }
	for _, tc := range []struct {
		name string
		f    SidebarFilter
		want []string
	}{
		{"none", SidebarFilter{}, []string{"# main (4 sessions)", "Fix login/Claude", "S3/Codex", "Refactor store/Claude", "Docs/",
			"# feature/login (1 session)", "Login form/Codex"}},
		{"agent", SidebarFilter{Agent: AgentCodex}, []string{"# main (1 of 4 sessions)", "S3/Codex", "# feature/login (1 session)", "Login form/Codex"}},
		{"model", SidebarFilter{Model: "claude-sonnet-4-5"}, []string{"# main (1 of 4 sessions)", "Refactor store/Claude"}},
		{"status", SidebarFilter{Statuses: map[string]bool{"●": true, "○": true}}, []string{"# main (2 of 4 sessions)", "Fix login/Claude", "Docs/"}},
		{"failed", SidebarFilter{Failed: true}, []string{"# main (1 of 4 sessions)", "Refactor store/Claude"}},
		{"dates", SidebarFilter{From: day("2026-11-19"), To: day("2026-11-19")}, []string{"# main (1 of 4 sessions)", "Refactor store/Claude"}},
		{"from", SidebarFilter{From: day("2026-11-20")}, []string{"# main (2 of 4 sessions)", "Fix login/Claude", "S3/Codex"}},
		{"nothing", SidebarFilter{Agent: AgentCodex, Failed: true}, nil},
	} {
		s.SetFilter(tc.f)
		if got := shownRows(s); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: rows %q\nwant %q", tc.name, got, tc.want)
		}
	}
	// The name filter and the filters together.
	s.SetFilter(SidebarFilter{Agent: AgentClaude})
	s.filters.entry.SetText("login")
	if got := shownRows(s); fmt.Sprint(got) != fmt.Sprint([]string{"# main (1 of 4 sessions)", "Fix login/Claude"}) {
		t.Errorf("name and agent: %q", got)
	}
	if s.filters.button.Text != "Filters (1)" {
		t.Errorf("button says %q", s.filters.button.Text)
	}
}

// TestSidebarFiltersPopup sets filters through the popup as a user does.
func TestSidebarFiltersPopup(t *testing.T) {
	s, _, w := newTestSidebar(t)
	s.SetFacets(sampleFacets())
	test.Tap(s.filters.button)
	pop := w.Canvas().Overlays().Top()
	if pop == nil {
		t.Fatal("no popup")
	}
	selects := objectsOf[*widget.Select](pop)
	checks := objectsOf[*widget.Check](pop)
	entries := objectsOf[*widget.Entry](pop)
	if len(selects) != 2 || len(entries) != 2 {
		t.Fatalf("popup has %d selects, %d entries", len(selects), len(entries))
	}
	if fmt.Sprint(selects[1].Options) != "[Any model claude-opus-4-5 claude-sonnet-4-5 gpt-5-codex]" {
		t.Errorf("model options %q", selects[1].Options)
	}
	selects[0].SetSelected(AgentClaude)
	entries[0].SetText("not a date")
	var apply *widget.Button
	for _, b := range objectsOf[*widget.Button](pop) {
		if b.Text == "Apply" {
			apply = b
		}
	}
	test.Tap(apply)
	if w.Canvas().Overlays().Top() == nil {
		t.Fatal("a bad date closed the popup")
	}
	entries[0].SetText("2026-11-20")
	for _, c := range checks {
		if c.Text == "✓ completed" || c.Text == "● running" {
			c.SetChecked(true)
		}
	}
	test.Tap(apply)
	if w.Canvas().Overlays().Top() != nil {
		t.Fatal("the popup stayed open")
	}
	if got := shownRows(s); fmt.Sprint(got) != fmt.Sprint([]string{"# main (1 of 4 sessions)", "Fix login/Claude"}) {
		t.Errorf("after the popup: %q (filter %+v)", got, s.Filter())
	}
}
