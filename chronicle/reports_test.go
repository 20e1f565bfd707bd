package chronicle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

func TestStandup(t *testing.T) {
	f := gather(t, craftedStore(t), Standup, all())
	var wts []string
	for _, w := range f.Worktrees {
		wts = append(wts, w.Worktree)
	}
	equal(t, "worktrees", wts, []string{"feature", "main"})
	main := f.Worktrees[1].Sessions
	if len(main) != 2 {
		t.Fatalf("main has %d sessions, want 2", len(main))
	}
	s1, s2 := main[0], main[1]
	var got []string
	for _, p := range s1.Prompts {
		got = append(got, p.Text+" "+p.Cite.String())
	}
	equal(t, "S1 prompts", got, []string{"fix the login bug in auth.go [S1#2]", "no, that's wrong: keep the old API [S1#14]",
		"run the full test suite please [S1#17]"})
	if s1.Outcome != "✗" || s1.OutcomeCite.String() != "[S1#20]" || s1.DurationMS != 10000 || s1.CostUSD != 0.8 {
		t.Errorf("S1 ended %s %s after %d ms for $%v, want ✗ [S1#20] after 10000 ms for $0.8", s1.Outcome, s1.OutcomeCite, s1.DurationMS, s1.CostUSD)
	}
	if len(s1.Files) != 1 || s1.Files[0] != (FileChange{Path: "auth.go", Action: "edit", Count: 5, Cite: Cite{Session: 1, Seq: 11}}) {
		t.Errorf("S1 files = %+v, want auth.go edited 5 times, last at 11", s1.Files)
	}
	if len(s1.Refs) != 1 || s1.Refs[0].Kind != "pr" || s1.Refs[0].Value != "#12" || s1.Refs[0].Cite.String() != "[S1#12]" {
		t.Errorf("S1 refs = %+v, want PR #12 at [S1#12]", s1.Refs)
	}
	got = nil
	for _, p := range s2.Prompts {
		got = append(got, p.Text)
	}
	equal(t, "S2 prompts (the interruption marker is no prompt)", got, []string{"run the full test suite please", "add a changelog entry", "stop, revert that"})
	if s2.Outcome != "✓" {
		t.Errorf("S2 outcome %q, want ✓", s2.Outcome)
	}
}

func TestStandupNothingFound(t *testing.T) {
	src := craftedStore(t)
	f := gather(t, src, Standup, Options{Window: Window{From: "2999-01-01 00:00:00", Label: "24h"}})
	if len(f.Worktrees) != 0 || !strings.Contains(f.Nothing, "--since 7d") || !strings.Contains(f.Nothing, "lazuli import-native") {
		t.Fatalf("nothing found = %q (%d worktrees); want a hint to widen the range and to import native history", f.Nothing, len(f.Worktrees))
	}
	if md := Builtin(f); !strings.Contains(md, f.Nothing) {
		t.Errorf("the report does not say so:\n%s", md)
	}
}

func TestTips(t *testing.T) {
	f := gather(t, craftedStore(t), Tips, all())
	equal(t, FindCompacted, findings(f, FindCompacted), []string{`S3 “refactor”: 8 events over 1 turn, compacted 3 times [S3#2] [S3#4] [S3#6]`})
	equal(t, FindAbandoned, findings(f, FindAbandoned), []string{
		`S1 “login” ended after 1 tool error on “run the full test suite please” and was not picked up again [S1#17] [S1#20]`})
	equal(t, FindRepeated, findings(f, FindRepeated), []string{`“run the full test suite please” was sent 2 times in 2 sessions [S1#17] [S2#1]`})
	equal(t, FindSlowShort, findings(f, FindSlowShort), []string{
		`“run the full test suite please” waited 2m for a one-line answer: “All tests pass.” [S2#1] [S2#4]`})
	equal(t, FindModel, findings(f, FindModel), []string{
		"`gpt-5-codex` (codex): 1 session, 1 turn, $5.00 — e.g. “refactor the storage layer” [S3#1]",
		"`claude-haiku-4-5` (claude): 6 sessions, 7 turns, $0.90 — e.g. “run the full test suite please”, “small task 0”, “small task 1” [S2#1] [S4#1] [S5#1]",
		"`claude-sonnet-4-5` (claude): 1 session, 3 turns, $0.80 — e.g. “fix the login bug in auth.go” [S1#2]",
	})
	equal(t, FindCostly, findings(f, FindCostly), []string{
		`S3 “refactor” cost $5.00 over 1 turn, 50.0× the median session ($0.10) [S3#1]`,
		`S1 “login” cost $0.80 over 3 turns, 8.0× the median session ($0.10) [S1#2]`,
		`S2 “tests” cost $0.40 over 4 turns, 4.0× the median session ($0.10) [S2#1]`,
	})
}

func TestImprove(t *testing.T) {
	src := craftedStore(t)
	project := t.TempDir()
	// An existing CLAUDE.md without a final newline: the diff must still apply.
	if err := os.WriteFile(filepath.Join(project, "CLAUDE.md"), []byte("# Rules\n\nUse gofmt."), 0o644); err != nil {
		t.Fatal(err)
	}
	f := gather(t, src, Improve, Options{Window: Window{Label: "all"}, ProjectDir: project})
	equal(t, FindToolErrors, findings(f, FindToolErrors), []string{"`Bash` failed 3 of 3 calls in 1 session [S1#4] [S1#6] [S1#19]"})
	equal(t, FindFailingCmd, findings(f, FindFailingCmd), []string{"`go test ./...` failed 2 times [S1#4] [S1#6]"})
	equal(t, FindRetried, findings(f, FindRetried), []string{"a failed `Bash` call was made again unchanged 1 time [S1#4] [S1#5]"})
	equal(t, FindBackForth, findings(f, FindBackForth), []string{"`auth.go` was changed 5 times in S1 “login” [S1#7] [S1#11]"})
	equal(t, FindCorrection, findings(f, FindCorrection), []string{
		`S1 “login” corrected the agent: “no, that's wrong: keep the old API” [S1#14]`,
		`S2 “tests” corrected the agent: “stop, revert that” [S2#9]`,
	})
	equal(t, FindInterrupt, findings(f, FindInterrupt), []string{`S2 “tests”: the turn of “add a changelog entry” was interrupted [S2#6] [S2#7]`})
	var props []string
	for _, p := range f.Proposals {
		props = append(props, p.File+" "+p.Line+" "+cites(p.Cites))
	}
	equal(t, "proposals", props, []string{
		"CLAUDE.md - A command has failed here repeatedly (2 times): check what it needs (setup, working folder, flags) before running it, and do not rerun it unchanged. The command: `\"go test ./...\"` [S1#4] [S1#6]",
		"CLAUDE.md - Read this file whole and plan the change before editing it: it was edited back and forth (5 changes in one session). The file: `\"auth.go\"` [S1#7] [S1#11]",
		"CLAUDE.md - When a tool call fails, read the error and change the call before trying again; never repeat it unchanged. [S1#4] [S1#5]",
		"CLAUDE.md - Say in one sentence what you are about to change before large or destructive edits, and wait if unsure: the user had to correct course 2 times. [S1#14] [S2#9]",
	})
	// The diff applies to the project as it is, and only adds the lines.
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = project
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s\ndiff:\n%s", strings.Join(args, " "), err, out, f.Diff)
		}
		return string(out)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(project, "fix.diff"), []byte(f.Diff), 0o644); err != nil {
		t.Fatal(err)
	}
	git("apply", "fix.diff")
	data, err := os.ReadFile(filepath.Join(project, "CLAUDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# Rules\n\nUse gofmt.\n\n" + lessonsHeading + "\n\n" + dataNote + "\n\n" + strings.Join(func() []string {
		var l []string
		for _, p := range f.Proposals {
			l = append(l, p.Line)
		}
		return l
	}(), "\n") + "\n"
	if string(data) != want {
		t.Errorf("CLAUDE.md after git apply:\n%s\nwant:\n%s", data, want)
	}
	// Gathering again over the patched file proposes nothing new.
	if f2 := gather(t, src, Improve, Options{Window: Window{Label: "all"}, ProjectDir: project}); f2.Diff != "" {
		t.Errorf("lines already in CLAUDE.md are proposed again:\n%s", f2.Diff)
	}
}

func TestImproveCodexWritesAgentsMD(t *testing.T) {
	ctx := context.Background()
	src := craftedStore(t)
	st := src[0].Store
	s, err := st.Sessions().Create(ctx, "feature", "codex edits")
	if err != nil {
		t.Fatal(err)
	}
	evs := []codec.Event{codec.UserMessage("tidy the parser")}
	for i := range 4 {
		evs = append(evs, edit(string(rune('a'+i)), "/w/parser.go"))
	}
	if _, err := st.Events().Append(ctx, s.ID, evs, usage(4, "gpt-5-codex", "codex", 0.2)); err != nil {
		t.Fatal(err)
	}
	if _, err := src[0].Index.Update(ctx); err != nil {
		t.Fatal(err)
	}
	f := gather(t, src, Improve, Options{Window: Window{Label: "all"}, ProjectDir: t.TempDir()})
	var files []string
	for _, p := range f.Proposals {
		if strings.Contains(p.Line, "parser.go") {
			files = append(files, p.File)
		}
	}
	equal(t, "files for the Codex session's proposal", files, []string{"AGENTS.md"})
	if !strings.Contains(f.Diff, "+++ b/AGENTS.md") || !strings.Contains(f.Diff, "+++ b/CLAUDE.md") {
		t.Errorf("diff does not add to both files:\n%s", f.Diff)
	}
}

// fakeRunner answers every prompt with answer, and records the prompts.
type fakeRunner struct {
	installed map[string]bool
	answer    string
	err       error
	prompts   map[string]string
}

func (r *fakeRunner) Available(b string) bool { return r.installed[b] }

func (r *fakeRunner) Run(_ context.Context, b, prompt string) (string, error) {
	if r.prompts == nil {
		r.prompts = map[string]string{}
	}
	r.prompts[b] = prompt
	return r.answer, r.err
}

func TestCitationsChecked(t *testing.T) {
	src := craftedStore(t)
	f := gather(t, src, Improve, all())
	r := &fakeRunner{installed: map[string]bool{"claude": true},
		answer: "# Where the agent struggled\n\n- `go test` failed twice [S1#4] [S1#6].\n- An invented one [S99#1], an event past the end [S1#999], another store [S1#2@2].\n- A whole session [S2].\n"}
	res, err := Write(context.Background(), src, f, AgentAuto, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Agent != "claude" || !strings.Contains(r.prompts["claude"], `"text":"S1 “login” corrected the agent: “no, that's wrong: keep the old API”"`) ||
		!strings.Contains(r.prompts["claude"], `"cites":["[S1#14]"]`) {
		t.Fatalf("agent %s; prompt does not hold the facts with their citations:\n%s", res.Agent, r.prompts["claude"])
	}
	equal(t, "unresolved", res.Unresolved, []string{"[S99#1]", "[S1#999]", "[S1#2@2]"})
	equal(t, "sessions", res.Sessions, []string{"S1", "S2"})
	link := Link(src[0].Store.Path(), 1, 4)
	for _, want := range []string{"[S1#4](" + link + ")", "**S99#1 ⚠ not found**", "**S1#999 ⚠ not found**", "**S1#2@2 ⚠ not found**",
		"[S2](" + Link(src[0].Store.Path(), 2, 0) + ")"} {
		if !strings.Contains(res.Markdown, want) {
			t.Errorf("report lacks %q:\n%s", want, res.Markdown)
		}
	}
}

func TestWriterChoice(t *testing.T) {
	src := craftedStore(t)
	f := gather(t, src, Tips, all())
	ctx := context.Background()
	none := &fakeRunner{}
	res, err := Write(ctx, src, f, AgentAuto, none)
	if err != nil || res.Agent != "builtin" || !strings.Contains(res.Fallback, "claude: agent CLI not found") || res.Raw != Builtin(f) {
		t.Errorf("auto without CLIs: agent %q fallback %q err %v; want the built-in writer", res.Agent, res.Fallback, err)
	}
	if _, err := Write(ctx, src, f, AgentCodex, none); !errors.Is(err, ErrNoCLI) {
		t.Errorf("--agent codex without its CLI: %v, want ErrNoCLI", err)
	}
	failing := &fakeRunner{installed: map[string]bool{"claude": true, "codex": true}, err: errors.New("exit 1")}
	res, err = Write(ctx, src, f, AgentAuto, failing)
	if err != nil || res.Agent != "builtin" || !strings.Contains(res.Fallback, "codex: exit 1") {
		t.Errorf("auto with failing CLIs: agent %q fallback %q err %v", res.Agent, res.Fallback, err)
	}
	if Builtin(f) != Builtin(gather(t, src, Tips, all())) {
		t.Error("the built-in writer is not deterministic")
	}
}

// TestSharedFixtures writes the three reports over each shared fixture
// store: every citation the built-in writer makes resolves.
func TestSharedFixtures(t *testing.T) {
	dir := fixtures.Dir(t, "azs")
	paths, err := filepath.Glob(filepath.Join(dir, "*.azs"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture stores in %s: %v", dir, err)
	}
	ctx := context.Background()
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			st, err := store.OpenReadOnly(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			x, err := insight.Open(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if _, err := x.Update(ctx); err != nil {
				t.Fatal(err)
			}
			src := []Source{{Store: st, Index: x}}
			for _, r := range Reports {
				f := gather(t, src, r, all())
				res, err := Write(ctx, src, f, AgentBuiltin, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Unresolved) > 0 {
					t.Errorf("%s: unresolved citations %v", r, res.Unresolved)
				}
				if r == Standup && f.Sessions > 0 && len(res.Sessions) == 0 {
					t.Errorf("%s cites no session of %d", r, f.Sessions)
				}
			}
		})
	}
}

// TestAgentPromptKeepsNewestSessions: a standup too large for an agent's
// prompt keeps its newest sessions and says how many it left out.
func TestAgentPromptKeepsNewestSessions(t *testing.T) {
	f := &Facts{Report: Standup, Since: "all the history"}
	for wt := range 2 {
		w := WorktreeWork{Worktree: fmt.Sprintf("wt%d", wt)}
		for i := range 2000 {
			id := int64(i*2 + wt + 1)
			w.Sessions = append(w.Sessions, SessionWork{Cite: Cite{Session: id}, Outcome: "✓",
				Prompts: []Prompt{{Text: strings.Repeat("a long prompt ", 14), Cite: Cite{Session: id, Seq: 1}}}})
		}
		f.Worktrees = append(f.Worktrees, w)
	}
	p, err := AgentPrompt(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) > maxFactBytes+4000 || !strings.Contains(p, `"cite":"[S4000]"`) || strings.Contains(p, `"cite":"[S1]"`) ||
		!strings.Contains(p, `"sessions_omitted":`) {
		t.Errorf("prompt of %d bytes; newest kept %v, oldest left out %v", len(p), strings.Contains(p, `"cite":"[S4000]"`), !strings.Contains(p, `"cite":"[S1]"`))
	}
	if f.sessionsListed() != 4000 {
		t.Error("AgentPrompt changed the facts")
	}
}

func TestUnfence(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# T\n\n- a [S1]\n", "# T\n\n- a [S1]"},
		{"```markdown\n# T\n- a\n```", "# T\n- a"},
		{"```\n# T\n```\n", "# T"},
		{"```go\nx := 1\n```", "```go\nx := 1\n```"},
		{"# T\n```diff\n+a\n```", "# T\n```diff\n+a\n```"},
		{"```markdown\n# T\n```diff\n+a\n```\n```", "# T\n```diff\n+a\n```"},
	} {
		if got := unfence(c.in); got != c.want {
			t.Errorf("unfence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLegend: a report that cites ends with a line explaining S12#340 and,
// over several worktrees, which worktree each @N is; one that cites
// nothing has none.
func TestLegend(t *testing.T) {
	ctx := context.Background()
	var two []Source
	for _, name := range []string{"main", "feat"} {
		st, err := store.Open(ctx, filepath.Join(t.TempDir(), name, ".azureal", "sessions.azs"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		two = append(two, Source{Store: st})
	}
	feat := filepath.Dir(filepath.Dir(two[1].Store.Path()))
	cases := []struct {
		name    string
		sources []Source
		text    string
		want    []string
		not     []string
	}{
		{"no citation", two, "# Tips\n\nNothing cited.\n", nil, []string{"Citations"}},
		{"one store", two[:1], "- done [S1#47]\n", []string{"S12#340 is event 340 of session S12", "opens the transcript"}, []string{"@"}},
		{"two stores", two, "- done [S1#47@2]\n", []string{"S12#340 is event 340", "@2 " + feat + ".", "No @ is @1."}, []string{"`"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Legend(tc.sources, tc.text)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Legend(%q) = %q, want it to hold %q", tc.text, got, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("Legend(%q) = %q, want no %q", tc.text, got, w)
				}
			}
		})
	}
	src := craftedStore(t)
	res, err := Write(ctx, src, gather(t, src, Improve, all()), AgentBuiltin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Markdown, "\n---\n\n*Citations: S12#340 is event 340") || !strings.HasPrefix(res.Legend, "Citations: S12#340") {
		t.Errorf("the report does not end with the legend (%q):\n%s", res.Legend, res.Markdown)
	}
	if got := legendMarkdown(two, "[S1#2@2]"); !strings.Contains(got, "@2 `"+feat+"`.") || !strings.HasPrefix(got, "*Citations") {
		t.Errorf("legendMarkdown = %q, want italics and the folders as code", got)
	}
}
