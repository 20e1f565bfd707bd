package agentwork

import (
	"archive/tar"
	"compress/gzip"
	"database/sql"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

const firstPrompt = "Hey Claude, please have a look at the git diff of claude_code_log/renderer.py"

func TestDerive(t *testing.T) {
	dir := fixtures.Dir(t, "transcripts")
	b, err := os.ReadFile(filepath.Join(dir, "B_claude-code-log_37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	turns := Derive(b, 3, 20)
	if len(turns) != 3 {
		t.Fatalf("%d turns, want 3", len(turns))
	}
	if !strings.HasPrefix(turns[0].Prompt, firstPrompt) {
		t.Errorf("first prompt %q", turns[0].Prompt)
	}
	a := turns[0].Actions[0]
	if a.Kind != "shell" || a.Key != "git diff claude_code_log/renderer.py" ||
		a.Text != "I'll examine the git diff for the renderer.py file to explain those two methods." {
		t.Errorf("first action %+v", a)
	}
	for i, tn := range turns {
		if len(tn.Actions) > 20 {
			t.Errorf("turn %d: %d actions, more than 20", i, len(tn.Actions))
		}
		if strings.HasPrefix(tn.Prompt, "<") {
			t.Errorf("turn %d: a command or reminder as prompt: %.60q", i, tn.Prompt)
		}
	}
	if got := Derive(b, 1, 2); len(got) != 1 || len(got[0].Actions) != min(2, len(turns[0].Actions)) {
		t.Errorf("Derive(1, 2) = %d turns", len(got))
	}
}

func TestTranscripts(t *testing.T) {
	sessions, order, err := Transcripts(fixtures.Dir(t, "transcripts"), SeedOptions{Sessions: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(order) < 10 {
		t.Fatalf("%d transcripts", len(order))
	}
	for _, n := range order {
		if strings.Contains(n, "subagents--") || strings.Contains(n, "_agent-") || !strings.HasPrefix(n, "B_") {
			t.Errorf("%s used", n)
		}
		if actions(sessions[n]) < minActions {
			t.Errorf("%s: %d actions", n, actions(sessions[n]))
		}
	}
}

// testProject is a project copied from this package's own sources.
func testProject(t *testing.T) *Project {
	p, err := NewProject(".", filepath.Join(t.TempDir(), "proj"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScript(t *testing.T) {
	p := testProject(t)
	turns := []Turn{
		{Prompt: "one", Actions: []Action{{Kind: "read", Key: "/a/b.go"}, {Kind: "edit", Key: "/a/c.go", Text: "Editing."}}, Reply: "Done one."},
		{Prompt: "two", Actions: []Action{{Kind: "shell", Key: "make"}}},
	}
	for name, a := range Agents {
		s0, s1 := Script(a, p, turns, 0), Script(a, p, turns, 1)
		if len(s0) != 3 || s0[2].Text != "Done one." || s0[1].Text != "Editing." {
			t.Errorf("%s: turn 0: %+v", name, s0)
		}
		// The second turn starts after the first's two tool steps.
		if len(s1) != 4 || len(s1[0].Tools) != 0 || len(s1[1].Tools) != 0 || len(s1[2].Tools) != 1 || s1[3].Text != "Done." {
			t.Errorf("%s: turn 1: %+v", name, s1)
		}
	}
	if got := Script(Agents["copilot"], p, turns, 0)[1].Tools[0]; got.Name != "edit" ||
		got.Input.(map[string]any)["old_str"] == "" {
		t.Errorf("copilot edit %+v", got)
	}
	if got := Script(Agents["claude"], p, turns, 0)[1].Tools[0]; got.Name != "Edit" ||
		got.Input.(map[string]any)["old_string"] == "" || got.Input.(map[string]any)["file_path"] == "" {
		t.Errorf("claude edit %+v", got)
	}
}

// TestReplicateClaude: copies of a session the real claude CLI wrote, with
// a sub-agent, are sessions of their own, each file named after the
// session id it holds, the sub-agent below its own copy; Copies says how
// many Replicate writes.
func TestReplicateClaude(t *testing.T) {
	a := Agents["claude"]
	out, st, _ := replicated(t, a, 2, func(seed string) {
		copyTree(t, filepath.Join(fixtures.Dir(t, "real-cli"), "claude-g-subagent", "transcripts", "claude", "projects"), a.HistoryDir(seed))
	})
	if st.Files != 6 {
		t.Fatalf("%+v", st)
	}
	sessions := map[string]bool{}
	err := filepath.WalkDir(a.HistoryDir(out), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		id := regexp.MustCompile(`"sessionId":"([0-9a-f-]{36})"`).FindSubmatch(b)
		if id == nil {
			t.Fatalf("%s: no session id", p)
		}
		if strings.Contains(p, "/subagents/") {
			if !strings.Contains(p, "/"+string(id[1])+"/subagents/") {
				t.Errorf("%s: a sub-agent of session %s below another", p, id[1])
			}
			return nil
		}
		if d.Name() != string(id[1])+".jsonl" || sessions[string(id[1])] {
			t.Errorf("%s: session %s, named otherwise or twice", d.Name(), id[1])
		}
		sessions[string(id[1])] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 2 {
		t.Errorf("%d sessions, want 2", len(sessions))
	}
}

func TestResolve(t *testing.T) {
	p := testProject(t)
	for n, a := range []Action{{Kind: "edit", Key: "x.py"}, {Kind: "edit", Key: "y.py"}, {Kind: "read", Key: "z"},
		{Kind: "shell", Key: "npm test"}, {Kind: "write", Key: "/u/notes.md", Content: "hello"}, {Kind: "search", Key: "foo"}} {
		c := p.Resolve(a, n)
		if c2 := p.Resolve(a, n); c2 != c {
			t.Errorf("%+v resolved twice: %+v, %+v", a, c, c2)
		}
		switch c.Kind {
		case "edit":
			b, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(string(b), c.Old) != 1 || c.New == c.Old {
				t.Errorf("edit %+v: old text not once in %s", c, c.Path)
			}
		case "read":
			if _, err := os.Stat(c.Path); err != nil {
				t.Error(err)
			}
		case "write":
			if !strings.HasPrefix(c.Path, p.Dir) || c.Content != "hello" {
				t.Errorf("write %+v", c)
			}
		case "shell":
			if c.Command == "" || c.Purpose == "" {
				t.Errorf("shell %+v", c)
			}
		}
	}
}

func TestRemap(t *testing.T) {
	const id = "01a221e1-23e4-704b-8fa3-77de762f7f07"
	s := `{"id":"` + id + `","parent":"` + id + `","msg":"msg_dde2161e1ffes6w5OkD3f45rB5"}`
	a, b := Remap("opencode", s, 0), Remap("opencode", s, 1)
	if a == b || strings.Contains(a, id) || strings.Contains(a, "s6w5OkD3f45rB5") {
		t.Fatalf("not remapped: %s / %s", a, b)
	}
	if a != Remap("opencode", s, 0) {
		t.Error("not deterministic")
	}
	m := uuidRE.FindAllString(a, -1)
	if len(m) != 2 || m[0] != m[1] || m[0][14] != '7' {
		t.Errorf("ids %v: not the same within a copy, or the version lost", m)
	}
	if !regexp.MustCompile(`"msg_dde2161e1ffe[0-9A-Za-z]{14}"`).MatchString(a) {
		t.Errorf("OpenCode id's time part lost: %s", a)
	}
}

// copyTree copies the regular files below src to dst.
func copyTree(t *testing.T, src, dst string) {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(dst, mustRel(src, p)), b)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// replicated fills a seed HOME with fill, replicates copies of its
// history and returns the new HOME, what Replicate wrote and the seed's
// bytes, after checking that it wrote as many copies as Copies says and
// as asked.
func replicated(t *testing.T, a *Agent, copies int, fill func(seed string)) (string, Stats, int64) {
	t.Helper()
	seed, out := t.TempDir(), t.TempDir()
	fill(seed)
	size, err := treeSize(a.HistoryDir(seed), a)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(copies) * size
	st, err := Replicate(a, seed, out, want)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Copies(a, seed, want); err != nil || n != copies || st.Copies != copies {
		t.Fatalf("%+v, Copies %d (%v), from %d bytes", st, n, err, size)
	}
	return out, st, size
}

func TestReplicatePi(t *testing.T) {
	a := Agents["pi"]
	out, st, size := replicated(t, a, 3, func(seed string) {
		copyTree(t, filepath.Join("..", "..", "agents", "pi", "testdata", "capture", "sessions"), a.HistoryDir(seed))
	})
	if st.Files != 6 || st.Bytes < 3*size {
		t.Fatalf("%+v", st)
	}
	ids := map[string]bool{}
	err := filepath.WalkDir(a.HistoryDir(out), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		id := uuidRE.FindString(string(b))
		if !strings.HasSuffix(d.Name(), "_"+id+".jsonl") || ids[id] {
			t.Errorf("%s: session %s, named otherwise or twice", d.Name(), id)
		}
		ids[id] = true
		if !strings.Contains(string(b), `"parentId":"`) {
			t.Errorf("%s: links lost", d.Name())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReplicateGemini(t *testing.T) {
	seed, out := t.TempDir(), t.TempDir()
	a := Agents["gemini"]
	copyTree(t, filepath.Join("..", "..", "agents", "gemini", "testdata", "capture", "multitool.home"), seed)
	st, err := Replicate(a, seed, out, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Copies != 1 {
		t.Fatalf("%+v", st)
	}
	chats, _ := filepath.Glob(filepath.Join(a.HistoryDir(out), "proj", "chats", "*.jsonl"))
	if len(chats) != 1 {
		t.Fatalf("chats %v", chats)
	}
	b, err := os.ReadFile(chats[0])
	if err != nil {
		t.Fatal(err)
	}
	id := sessionIDRE.FindStringSubmatch(string(b))[1]
	if filepath.Base(chats[0]) != "session-2026-11-28T11-27-"+id[:8]+".jsonl" || strings.HasPrefix(id, "d07db92d") {
		t.Errorf("%s holds session %s", chats[0], id)
	}
	if _, err := os.Stat(filepath.Join(a.HistoryDir(out), "proj", ".project_root")); err != nil {
		t.Errorf("a file without an id is not copied: %v", err)
	}
}

// untar unpacks the regular files of a .tar.gz into dir.
func untar(t *testing.T, path, dir string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeFile(filepath.Join(dir, filepath.Base(h.Name)), b); err != nil {
			t.Fatal(err)
		}
	}
}

func count(t *testing.T, db *sql.DB, q string) int {
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReplicateOpenCode(t *testing.T) {
	a := Agents["opencode"]
	out, _, _ := replicated(t, a, 4, func(seed string) {
		untar(t, filepath.Join("..", "..", "agents", "opencode", "testdata", "capture", "opencode-db.tar.gz"), a.HistoryDir(seed))
	})
	db, err := sql.Open("sqlite", "file:"+filepath.Join(a.HistoryDir(out), "opencode.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, messages, parts := count(t, db, "SELECT count(*) FROM session"), count(t, db, "SELECT count(*) FROM message"),
		count(t, db, "SELECT count(*) FROM part")
	// The capture: 3 sessions, 17 messages, 46 parts; 4 copies, not the original.
	if sessions != 12 || messages != 68 || parts != 184 {
		t.Errorf("%d sessions, %d messages, %d parts; want 12, 68, 184", sessions, messages, parts)
	}
	if n := count(t, db, "SELECT count(*) FROM session WHERE id = 'ses_dde2161e1ffes6w5OkD3f45rB5'"); n != 0 {
		t.Error("the seed's own session is still there")
	}
	if n := count(t, db, "SELECT count(*) FROM message WHERE session_id NOT IN (SELECT id FROM session)"); n != 0 {
		t.Errorf("%d messages of no session", n)
	}
	if n := count(t, db, "SELECT count(*) FROM part WHERE message_id NOT IN (SELECT id FROM message)"); n != 0 {
		t.Errorf("%d parts of no message", n)
	}
}
