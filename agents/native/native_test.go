package native

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/internal/nativetree"
	"github.com/lazuli-app/lazuli/store"
)

// mustScan scans a history or fails the test.
func mustScan(tb testing.TB, opts Options) ScanResult {
	tb.Helper()
	scan, err := Scan(context.Background(), opts)
	if err != nil {
		tb.Fatalf("ScanNative(%+v) = %v", opts, err)
	}
	return scan
}

// sessionByID finds a scanned main session.
func sessionByID(tb testing.TB, scan ScanResult, id string) Session {
	tb.Helper()
	for _, n := range scan.Sessions {
		if n.ID == id {
			return n
		}
	}
	tb.Fatalf("no session %s in the scan", id)
	return Session{}
}

func TestScanNativeFixtures(t *testing.T) {
	tree := nativetree.ForTest(t)
	scan := mustScan(t, Options{Dirs: Dirs{Claude: tree.ClaudeDir, Codex: tree.CodexDir}})
	if len(scan.Skipped) != 0 || len(scan.Roots) != 2 || !scan.Roots[0].Found || !scan.Roots[1].Found {
		t.Errorf("roots %+v, skipped %+v", scan.Roots, scan.Skipped)
	}
	files := 0
	for i, n := range scan.Sessions {
		files += 1 + len(n.Subagents)
		if i > 0 && n.start().Before(scan.Sessions[i-1].start()) {
			t.Errorf("%s is listed after a later session", n.ID)
		}
	}
	if files != len(tree.Files) {
		t.Errorf("the scan found %d files, the tree has %d", files, len(tree.Files))
	}

	n := sessionByID(t, scan, "fed8ce56-bc79-401f-a83e-af084253362f")
	fi, _ := os.Stat(n.Path)
	want := Session{Agent: Claude, ID: n.ID, Path: n.Path, Size: fi.Size(), ModTime: fi.ModTime(),
		Cwd: "/Users/chip/dev/ai-music", Started: time.Date(2025, 6, 10, 12, 36, 23, 208e6, time.UTC),
		FirstPrompt: "push to github", project: "-Users-chip-dev-ai-music"}
	if n.Cwd != want.Cwd || !n.Started.Equal(want.Started) || n.FirstPrompt != want.FirstPrompt ||
		n.Size != want.Size || n.Branch != "" || n.ParentID != "" || n.Own != "" {
		t.Errorf("preview = %+v\nwant %+v", n, want)
	}
	if n := sessionByID(t, scan, "1af7fc5e-8455-4414-9ccd-011d40f70b2a"); n.FirstPrompt != "/init" {
		t.Errorf("a session that starts with /init previews as %q", n.FirstPrompt)
	}
	if n := sessionByID(t, scan, "9e953218-585f-4692-89df-9e0747a31c68"); strings.Contains(n.FirstPrompt, "ide_opened_file") || n.FirstPrompt == "" {
		t.Errorf("IDE context in the preview: %q", n.FirstPrompt)
	}
	cx := sessionByID(t, scan, "01997e76-d124-7592-9cac-2ec05abbca08")
	if cx.Agent != Codex || cx.Branch != "fix/team-optimization-v2" || cx.Cwd != "/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2" ||
		!strings.HasPrefix(cx.FirstPrompt, "Updating a team to assign a lead") || cx.Started.Format(time.RFC3339) != "2025-09-25T01:22:20Z" {
		t.Errorf("codex preview = %+v", cx)
	}

	t.Run("Subagents", func(t *testing.T) {
		ef := sessionByID(t, scan, "ef958aa1-0e93-49f0-bb71-150f63befcd1")
		if len(ef.Subagents) != 2 || ef.Subagents[0].ID != "ef958aa1-0e93-49f0-bb71-150f63befcd1/agent-a4ca7529859c158c2" ||
			ef.Subagents[0].ParentID != ef.ID || !strings.HasPrefix(ef.Subagents[0].FirstPrompt, "You are **alice**") {
			t.Errorf("ef958aa1's sub-agents (subagents/ folder): %+v", ef.Subagents)
		}
		a7 := sessionByID(t, scan, "a7da6a22-facc-4fcd-8bab-f83c87862004")
		if len(a7.Subagents) != 1 || a7.Subagents[0].ID != a7.ID+"/agent-c8d9b115" || a7.Subagents[0].AgentName != "c8d9b115" {
			t.Errorf("a7da6a22's flat sub-agent: %+v", a7.Subagents)
		}
		orphan := sessionByID(t, scan, "6323a48e-3984-42eb-8790-2f7811368ab7/agent-0c78cdae")
		if orphan.ParentID != "6323a48e-3984-42eb-8790-2f7811368ab7" || orphan.FirstPrompt != "Warmup" {
			t.Errorf("a sub-agent without its parent: %+v", orphan)
		}
	})
}

func TestScanNativeProject(t *testing.T) {
	tree := nativetree.ForTest(t)
	scan := mustScan(t, Options{Dirs: Dirs{Claude: tree.ClaudeDir, Codex: tree.CodexDir}, Project: "/src/experiments"})
	var ids []string
	for _, n := range scan.Sessions {
		ids = append(ids, n.ID[:8])
	}
	if got := strings.Join(ids, " "); got != "2b4ed4c0 256ba646 29ccd257" {
		t.Errorf("sessions in /src/experiments: %s", got)
	}
	scan = mustScan(t, Options{Dirs: Dirs{Claude: tree.ClaudeDir, Codex: tree.CodexDir}, Project: "/src/experiments/claude"})
	if len(scan.Sessions) != 0 {
		t.Errorf("/src/experiments/claude matched %d sessions of /src/experiments/claude_p", len(scan.Sessions))
	}
}

// claudeFile writes a Claude transcript of lines into projects/<enc>/<id>.jsonl.
func claudeFile(tb testing.TB, projects, cwd, id string, lines ...string) string {
	tb.Helper()
	path := filepath.Join(projects, EncodeClaudeProject(cwd), id+".jsonl")
	writeFile(tb, path, []byte(strings.Join(lines, "\n")+"\n"))
	return path
}

// claudeAt is claudeLine1 run in cwd.
func claudeAt(cwd string) string { return strings.ReplaceAll(claudeLine1, "/w/proj", cwd) }

func TestScanNativeProjectLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "proj")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "real"), link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	projects := filepath.Join(dir, "projects")
	claudeFile(t, projects, filepath.Join(real, "sub"), "in-real")
	claudeFile(t, projects, filepath.Join(link, "proj"), "in-link", claudeAt(filepath.Join(link, "proj")))
	claudeFile(t, projects, real+"-other", "beside", claudeAt(real+"-other"))
	writeFile(t, filepath.Join(projects, EncodeClaudeProject(real), "no-cwd.jsonl"),
		[]byte(`{"type":"summary","summary":"Old work","leafUuid":"x"}`+"\n"))
	os.Remove(filepath.Join(projects, EncodeClaudeProject(filepath.Join(real, "sub")), "in-real.jsonl"))
	claudeFile(t, projects, filepath.Join(real, "sub"), "in-real", claudeAt(filepath.Join(real, "sub")))
	for _, project := range []string{real, filepath.Join(link, "proj")} {
		scan := mustScan(t, Options{Dirs: Dirs{Claude: projects}, Project: project})
		var ids []string
		for _, n := range scan.Sessions {
			ids = append(ids, n.ID)
		}
		if got := strings.Join(ids, " "); !strings.Contains(got, "in-real") || !strings.Contains(got, "in-link") || strings.Contains(got, "beside") {
			t.Errorf("Project %s keeps %s; want in-real and in-link (links resolved), not beside", project, got)
		}
		if project == real && !strings.Contains(strings.Join(ids, " "), "no-cwd") {
			t.Errorf("a session without cwd in the project's folder was dropped: %v", ids)
		}
	}
}

func TestScanNativeMissingRoots(t *testing.T) {
	dir := t.TempDir()
	_, err := Scan(context.Background(), Options{Dirs: Dirs{Claude: filepath.Join(dir, "no-claude"), Codex: filepath.Join(dir, "no-codex")}})
	if !errors.Is(err, ErrNoHistory) || !strings.Contains(err.Error(), "no-claude: no such folder") {
		t.Errorf("both missing: %v", err)
	}
	if _, err := Scan(context.Background(), Options{}); !errors.Is(err, ErrNoHistory) {
		t.Errorf("no folder given: %v", err)
	}
	codex := filepath.Join(dir, "sessions")
	writeFile(t, filepath.Join(codex, "2025", "01", "02", "rollout-2025-01-02T03-04-05-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"),
		[]byte(`{"timestamp":"2025-01-02T03:04:05.000Z","type":"session_meta","payload":{"id":"0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee","cwd":"/w"}}`+"\n"))
	scan := mustScan(t, Options{Dirs: Dirs{Claude: filepath.Join(dir, "no-claude"), Codex: codex}})
	if scan.Roots[0].Found || scan.Roots[0].Note != "no such folder" || !scan.Roots[1].Found || len(scan.Sessions) != 1 {
		t.Errorf("one root missing: %+v, %d sessions", scan.Roots, len(scan.Sessions))
	}
	notDir := filepath.Join(dir, "file")
	writeFile(t, notDir, nil)
	if _, err := Scan(context.Background(), Options{Dirs: Dirs{Claude: notDir}}); !errors.Is(err, ErrNoHistory) || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file as the folder: %v", err)
	}
}

func TestScanNativeBadFiles(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	good := claudeFile(t, projects, "/w/proj", "good", claudeLine1, claudeLine2)
	writeFile(t, filepath.Join(projects, "-w-proj", "garbage.jsonl"), []byte("not json\n{also not\n"))
	writeFile(t, filepath.Join(projects, "-w-proj", "half.jsonl"), []byte(claudeLine1[:50]))
	writeFile(t, filepath.Join(projects, "-w-proj", "empty.jsonl"), nil)
	locked := claudeFile(t, projects, "/w/locked", "locked", claudeLine1)
	lockedDir := filepath.Join(projects, "-w-secret")
	claudeFile(t, projects, "/w/secret", "hidden", claudeLine1)
	if os.Geteuid() != 0 { // root reads files whatever their mode
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(lockedDir, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(lockedDir, 0o755) }) // so TempDir can be removed
	}
	scan := mustScan(t, Options{Dirs: Dirs{Claude: projects}})
	reasons := map[string]string{}
	for _, s := range scan.Skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	if reasons["garbage.jsonl"] != "not a Claude Code transcript" {
		t.Errorf("garbage: %q", reasons["garbage.jsonl"])
	}
	if os.Geteuid() != 0 && (!strings.Contains(reasons["locked.jsonl"], "permission denied") || !strings.Contains(reasons["-w-secret"], "permission denied")) {
		t.Errorf("unreadable file and folder: %+v", scan.Skipped)
	}
	found := map[string]bool{}
	for _, n := range scan.Sessions {
		found[n.ID] = true
	}
	if !found["good"] || !found["half"] || !found["empty"] || found["garbage"] {
		t.Errorf("sessions found: %v (good is %s)", found, good)
	}
}

func TestScanNativeOwnRuns(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	wrapped := codec.ContextOpenTag + "\n## User\nold\n" + codec.ContextCloseTag + "\n\nnext step"
	line := strings.Replace(claudeLine1, `"fix the build"`, strconv.Quote(wrapped), 1)
	claudeFile(t, projects, "/w/proj", "lazuli-turn", line)
	claudeFile(t, projects, "/tmp/lazuli-compact-123", "compaction", claudeAt("/tmp/lazuli-compact-123"))
	claudeFile(t, projects, "/w/proj", "typed", claudeLine1)
	scan := mustScan(t, Options{Dirs: Dirs{Claude: projects}})
	for _, n := range scan.Sessions {
		own := n.ID != "typed"
		if (n.Own != "") != own {
			t.Errorf("%s: Own = %q", n.ID, n.Own)
		}
		if n.ID == "lazuli-turn" && n.FirstPrompt != "next step" {
			t.Errorf("the preview of a context-wrapped prompt is %q", n.FirstPrompt)
		}
	}
}

// mustOpenStore opens a new store in a temporary worktree.
func mustOpenStore(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), ".azureal", "sessions.azs"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// mustImport imports sessions or fails the test.
func mustImport(tb testing.TB, st *store.Store, sessions []Session, opts ImportOptions) []Result {
	tb.Helper()
	res, err := Import(context.Background(), st, sessions, opts)
	if err != nil {
		tb.Fatalf("Native().Import() = %v", err)
	}
	return res
}

// mustCheck fails the test unless st passes Check.
func mustCheck(tb testing.TB, st *store.Store) {
	tb.Helper()
	rep, err := st.Check(context.Background())
	if err != nil || !rep.OK() {
		tb.Fatalf("Check() = %+v, %v", rep.Findings, err)
	}
}

func outcomes(res []Result) map[Outcome]int {
	m := map[Outcome]int{}
	for _, r := range res {
		m[r.Outcome]++
	}
	return m
}

func TestImportNativeFixtures(t *testing.T) {
	ctx := context.Background()
	tree := nativetree.ForTest(t)
	scan := mustScan(t, Options{Dirs: Dirs{Claude: tree.ClaudeDir, Codex: tree.CodexDir}})
	st := mustOpenStore(t)
	res := mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "trunk", ClaudeHome: os.DevNull})
	got := outcomes(res)
	if got[Imported] == 0 || got[Imported]+got[Skipped] != len(tree.Files) {
		t.Errorf("outcomes %v for %d files", got, len(tree.Files))
	}
	for _, r := range res {
		if r.Outcome == Skipped && r.Reason != "it holds no conversation (no prompt, reply or tool call)" {
			t.Errorf("%s skipped: %s", r.ID, r.Reason)
		}
	}
	mustCheck(t, st)
	byID := map[string]Result{}
	for _, r := range res {
		byID[r.ID] = r
	}

	fed := byID["fed8ce56-bc79-401f-a83e-af084253362f"]
	sess, err := st.Sessions().Get(ctx, fed.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Name != "push to github" || sess.Worktree != "trunk" || sess.Created != "2025-06-10 12:36:23" || sess.EventCount != int64(fed.Events) {
		t.Errorf("fed8ce56 became %+v", sess)
	}
	whole, _, _, err := agents.LoadTranscript(fed.Path, parse.FormatClaudeTranscript, parse.Options{ClaudeHome: os.DevNull})
	if err != nil || len(whole) != fed.Events {
		t.Errorf("%d events imported, lazuli import stores %d (%v)", fed.Events, len(whole), err)
	}
	cx := byID["01997e76-d124-7592-9cac-2ec05abbca08"]
	if s, _ := st.Sessions().Get(ctx, cx.SessionID); s.Worktree != "fix/team-optimization-v2" {
		t.Errorf("codex session's worktree = %q, want its git branch", s.Worktree)
	}

	t.Run("Subagents", func(t *testing.T) {
		parent := byID["ef958aa1-0e93-49f0-bb71-150f63befcd1"]
		alone, _, _, _ := agents.LoadTranscript(parent.Path, parse.FormatClaudeTranscript, parse.Options{ClaudeHome: os.DevNull})
		if parent.Events != len(alone) {
			t.Errorf("the parent has %d events, alone %d: sub-agent events leaked into it", parent.Events, len(alone))
		}
		ps, _ := st.Sessions().Get(ctx, parent.SessionID)
		recs, _ := st.Native().Imports(ctx)
		for _, id := range []string{"agent-a4ca7529859c158c2", "agent-a52886dc180afb356"} {
			sub := byID[parent.ID+"/"+id]
			s, err := st.Sessions().Get(ctx, sub.SessionID)
			if err != nil || sub.Outcome != Imported || !strings.HasPrefix(s.Name, agents.Shorten(ps.Name, 30)+" › You are **") ||
				s.Worktree != ps.Worktree || sub.SessionID == parent.SessionID {
				t.Errorf("sub-agent %s became %+v (%v), parent %+v", id, s, err, ps)
			}
			if rec := recs[store.NativeKey{Agent: Claude, ID: sub.ID}]; rec.ParentID != parent.ID {
				t.Errorf("record of %s: %+v", id, rec)
			}
		}
	})

	t.Run("Again", func(t *testing.T) {
		before, _ := os.ReadFile(st.Path())
		again := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Claude: tree.ClaudeDir, Codex: tree.CodexDir}}).Sessions, ImportOptions{})
		if got := outcomes(again); got[Unchanged] != outcomes(res)[Imported] || got[Imported]+got[Appended] != 0 {
			t.Errorf("importing again: %v", got)
		}
		if after, _ := os.ReadFile(st.Path()); !bytes.Equal(before, after) {
			t.Error("importing nothing new changed the store")
		}
	})
}

func TestImportNativeAppend(t *testing.T) {
	ctx := context.Background()
	projects := filepath.Join(t.TempDir(), "projects")
	path := filepath.Join(projects, "-w-proj", "s1.jsonl")
	writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"+claudeLine3[:60]))
	st := mustOpenStore(t)
	scan := func() []Session { return mustScan(t, Options{Dirs: Dirs{Claude: projects}}).Sessions }
	res := mustImport(t, st, scan(), ImportOptions{FallbackWorktree: "main"})
	if len(res) != 1 || res[0].Outcome != Imported || res[0].Events != 2 || res[0].SessionID != 1 {
		t.Fatalf("first import: %+v", res)
	}
	if s, _ := st.Sessions().Get(ctx, 1); s.Name != "fix the build" || s.Worktree != "feature/x" || s.Created != "2025-06-01 10:00:00" {
		t.Errorf("session = %+v", s)
	}
	if res := mustImport(t, st, scan(), ImportOptions{}); res[0].Outcome != Unchanged {
		t.Errorf("with only a half-written line more: %+v", res)
	}

	writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"+claudeLine3+"\n"+claudeLine4+"\n"))
	res = mustImport(t, st, scan(), ImportOptions{})
	if res[0].Outcome != Appended || res[0].Events != 2 || res[0].SessionID != 1 {
		t.Fatalf("after two lines more: %+v", res)
	}
	evs, err := st.Events().All(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []string
	for _, e := range evs {
		seqs = append(seqs, itoa(int(e.Seq))+":"+string(e.Kind))
	}
	if got := strings.Join(seqs, " "); got != "1:UserMessage 2:ToolCall 3:ToolResult 4:AssistantText" {
		t.Errorf("events after the append: %s", got)
	}
	if evs[2].Event.ToolName != "Bash" {
		t.Errorf("the appended result lost its tool name: %+v", evs[2].Event)
	}
	mustCheck(t, st)

	t.Run("Truncated", func(t *testing.T) {
		writeFile(t, path, []byte(claudeLine1+"\n"))
		sessions := scan()
		res := mustImport(t, st, sessions, ImportOptions{})
		if res[0].Outcome != Skipped || !strings.Contains(res[0].Reason, "rewritten or truncated after it was imported into S1") {
			t.Errorf("truncated: %+v", res)
		}
		recs, _ := st.Native().Imports(ctx)
		if st := sessions[0].State(recs); st != StateChanged {
			t.Errorf("State = %s, want changed", st)
		}
		res = mustImport(t, st, sessions, ImportOptions{Reimport: true})
		if res[0].Outcome != Imported || res[0].SessionID != 2 || res[0].Events != 1 {
			t.Errorf("reimport: %+v", res)
		}
		if evs, _ := st.Events().All(ctx, 1); len(evs) != 4 {
			t.Errorf("reimport changed the old session: %d events", len(evs))
		}
		mustCheck(t, st)
	})
}

func TestImportNativeUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	projects := filepath.Join(t.TempDir(), "projects")
	a := claudeFile(t, projects, "/w/proj", "a", claudeLine1)
	claudeFile(t, projects, "/w/proj", "b", strings.Replace(claudeLine1, "fix the build", "second", 1))
	sessions := mustScan(t, Options{Dirs: Dirs{Claude: projects}}).Sessions
	if err := os.Chmod(a, 0); err != nil {
		t.Fatal(err)
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, sessions, ImportOptions{})
	got := map[string]Result{}
	for _, r := range res {
		got[r.ID] = r
	}
	if got["a"].Outcome != Skipped || got["a"].Reason != "cannot read it: permission denied" || got["b"].Outcome != Imported {
		t.Errorf("results: %+v", res)
	}
	mustCheck(t, st)
}

// threeSessions scans three small Claude sessions, a, b and c, and opens
// an empty store for them.
func threeSessions(t *testing.T) ([]Session, *store.Store) {
	t.Helper()
	projects := filepath.Join(t.TempDir(), "projects")
	for _, id := range []string{"a", "b", "c"} {
		claudeFile(t, projects, "/w/proj", id, strings.Replace(claudeLine1, "fix the build", "task "+id, 1), claudeLine2)
	}
	return mustScan(t, Options{Dirs: Dirs{Claude: projects}}).Sessions, mustOpenStore(t)
}

// TestImportNativeCancel: a cancelled import stops between sessions; what
// it imported is whole, and the next import does the rest.
func TestImportNativeCancel(t *testing.T) {
	sessions, st := threeSessions(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []Progress
	res, err := Import(ctx, st, sessions, ImportOptions{Progress: func(p Progress) {
		seen = append(seen, p)
		if p.Files == 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || len(res) != 1 || res[0].Outcome != Imported {
		t.Fatalf("cancelled import: %+v, %v", res, err)
	}
	last := seen[len(seen)-1]
	if last.TotalFiles != 3 || last.Files != 1 || last.TotalBytes != sessions[0].Size*3 || last.Bytes != sessions[0].Size {
		t.Errorf("progress %+v", last)
	}
	mustCheck(t, st)
	res = mustImport(t, st, sessions, ImportOptions{})
	if got := outcomes(res); got[Unchanged] != 1 || got[Imported] != 2 {
		t.Errorf("after the cancel: %v", got)
	}
}

func TestShortenAndTitles(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  \n\n fix   the\tbuild \nmore", "fix the build"},
		{strings.Repeat("é", 70), strings.Repeat("é", 59) + "…"},
	}
	for _, tt := range tests {
		if got := agents.Shorten(tt.in, 60); got != tt.want {
			t.Errorf("shorten(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	n := Session{Agent: Codex, Started: time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)}
	if got := n.Title(); got != "codex 2026-05-01 09:30" {
		t.Errorf("Title() without a prompt = %q", got)
	}
	sub := Session{ParentID: "p", AgentName: "a1b2"}
	if got := SubagentTitle("fix the build", sub); got != "fix the build › agent a1b2" {
		t.Errorf("SubagentTitle = %q", got)
	}
}

func TestPromptText(t *testing.T) {
	tests := []struct {
		in, want string
		typed    bool
	}{
		{"fix it", "fix it", true},
		{"[image]\n[Image #1] look", "[Image #1] look", true},
		{"<ide_opened_file>The user opened a.go</ide_opened_file>\nwhy?", "why?", true},
		{"<command-message>init is analyzing…</command-message>\n<command-name>/init</command-name>", "/init", false},
		{"<command-name>/review</command-name><command-args>pr 3</command-args>", "/review pr 3", false},
		{"<bash-input>make test</bash-input>", "! make test", false},
		{"<bash-stdout>ok</bash-stdout><bash-stderr></bash-stderr>", "<bash-stderr></bash-stderr>", false},
		{"<local-command-stdout>bye</local-command-stdout>", "", false},
		{"[Request interrupted by user for tool use]", "[Request interrupted by user for tool use]", false},
	}
	for _, tt := range tests {
		if got, typed := agents.PromptText(tt.in); got != tt.want || typed != tt.typed {
			t.Errorf("PromptText(%q) = %q, %v; want %q, %v", tt.in, got, typed, tt.want, tt.typed)
		}
	}
}

// scribble overwrites path in place with bytes of the same length and puts
// its modification time back: its size, mtime and inode stay, its content
// is no transcript any more. A scan or import that read it would say so.
func scribble(tb testing.TB, path string) {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{'#'}, int(fi.Size())), 0); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		tb.Fatal(err)
	}
}

// TestImportNativeDecidesFromStat: after an import, scanning and importing
// again reads no transcript whose size, modification time and inode did
// not move (each is scribbled over in place, its stat kept, and still
// comes out unchanged with its preview); a file that was only touched is
// checked once, by checksum, and its new stat recorded; a file that grew
// is read and appended.
func TestImportNativeDecidesFromStat(t *testing.T) {
	tree := nativetree.ForTest(t)
	opts := Options{Dirs: Dirs{Claude: tree.ClaudeDir, Codex: tree.CodexDir}, PreviewCache: filepath.Join(t.TempDir(), "previews.gob")}
	st := mustOpenStore(t)
	first := mustScan(t, opts)
	res := mustImport(t, st, first.Sessions, ImportOptions{})
	imported := map[string]bool{}
	for _, r := range res {
		imported[r.Path] = r.Outcome == Imported
	}
	touched := tree.Files["B_claude-code-log_03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"]
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(touched, later, later); err != nil {
		t.Fatal(err)
	}
	res = mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{})
	for _, r := range res {
		if imported[r.Path] && r.Outcome != Unchanged {
			t.Errorf("touched: %s: %s %s", filepath.Base(r.Path), r.Outcome, r.Reason)
		}
	}
	for _, path := range tree.Files {
		scribble(t, path)
	}
	again := mustScan(t, opts)
	if len(again.Sessions) != len(first.Sessions) || len(again.Skipped) != len(first.Skipped) {
		t.Errorf("the scan read files: %d sessions, %d skipped; was %d and %d",
			len(again.Sessions), len(again.Skipped), len(first.Sessions), len(first.Skipped))
	}
	for i, n := range again.Sessions {
		if i < len(first.Sessions) && n.Title() != first.Sessions[i].Title() {
			t.Errorf("preview %d: %q, was %q", i, n.Title(), first.Sessions[i].Title())
		}
	}
	res = mustImport(t, st, again.Sessions, ImportOptions{})
	for _, r := range res {
		if imported[r.Path] && r.Outcome != Unchanged {
			t.Errorf("after scribbling: %s: %s %s", filepath.Base(r.Path), r.Outcome, r.Reason)
		}
	}

	grown := tree.Files["B_claude-code-log_07f2e15c-a38b-454b-9148-60edc06de401.jsonl"]
	orig, err := os.ReadFile(fixtures.Dir(t, "transcripts", "B_claude-code-log_07f2e15c-a38b-454b-9148-60edc06de401.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	appended := strings.ReplaceAll(claudeLine5, `"sessionId":"s1"`, `"sessionId":"07f2e15c-a38b-454b-9148-60edc06de401"`) + "\n"
	writeFile(t, grown, append(orig, appended...))
	res = mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{})
	for _, r := range res {
		want := Unchanged
		if r.Path == grown {
			want = Appended
		}
		if imported[r.Path] && r.Outcome != want {
			t.Errorf("after the append: %s: %s %s, want %s", filepath.Base(r.Path), r.Outcome, r.Reason, want)
		}
	}
}

// TestImportNativeGroupConflict: sessions are stored in groups, one
// transaction each; when another program imported one session of a group
// meanwhile, the others are still stored and that one is reported skipped.
func TestImportNativeGroupConflict(t *testing.T) {
	sessions, st := threeSessions(t)
	other, err := store.Open(context.Background(), st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var b Session
	for _, n := range sessions {
		if n.ID == "b" {
			b = n
		}
	}
	res := mustImport(t, st, sessions, ImportOptions{Progress: func(p Progress) {
		if p.Files == 1 && b.Path != "" { // a is read, b is next

			mustImport(t, other, []Session{b}, ImportOptions{})
			b.Path = ""
		}
	}})
	got := map[string]Outcome{}
	for _, r := range res {
		got[r.ID] = r.Outcome
	}
	if len(res) != 3 || got["a"] != Imported || got["b"] != Skipped || got["c"] != Imported {
		t.Errorf("outcomes %v", got)
	}
	mustCheck(t, st)
	if list, err := st.Sessions().List(context.Background(), ""); err != nil || len(list) != 3 {
		t.Errorf("%d sessions, %v; want 3", len(list), err)
	}
}
