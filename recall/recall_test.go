package recall

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/internal/testcache"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

func TestMain(m *testing.M) { os.Exit(testcache.Run(m)) }

// The crafted history's secret (a GitHub token shape) and the word only
// the first session's tool output holds.
const (
	secret = "ghp_" + "R8x2Kq9LmZ4vT7nB1cW5yH3jP6sD0fG8aQ2e"
	needle = "zanzibarquux"
)

func input(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func bash(id, cmd string) codec.Event {
	return codec.ToolCall(id, "Bash", nil, input(map[string]string{"command": cmd}))
}

func edit(id, path, old, new string) codec.Event {
	return codec.ToolCall(id, "Edit", &path, input(map[string]string{"file_path": path, "old_string": old, "new_string": new}))
}

func usage(ev int, backend string) store.Usage {
	return store.Usage{Event: ev, At: "2026-11-25 10:00:00", Source: "claude-stream", Model: backend + "-model", Backend: backend,
		Tokens: store.Tokens{Input: 1000, Output: 100, CostUSD: 0.5}, HasCost: true}
}

// crafted writes a store of three sessions, builds its search and insight
// indexes, and returns its path.
func crafted(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wt", ".azureal", "sessions.azs")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	add := func(wt, name string, evs []codec.Event, u ...store.Usage) {
		t.Helper()
		s, err := st.Sessions().Create(ctx, wt, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Events().Append(ctx, s.ID, evs, u...); err != nil {
			t.Fatal(err)
		}
	}
	add("main", "deploy", []codec.Event{
		codec.Init("/w", "claude-sonnet"),              // 1
		codec.UserMessage("find why the deploy fails"), // 2
		bash("b1", "./deploy.sh --token "+secret),      // 3
		codec.ToolResult("b1", "Bash", nil, "error: "+needle+" is not reachable\nsee https://github.com/acme/app/pull/42", true), // 4
		bash("b2", "./deploy.sh"),                                      // 5
		codec.ToolResult("b2", "Bash", nil, "error again", true),       // 6
		edit("e1", "/w/deploy.sh", "host=a", "host=b"),                 // 7
		codec.AssistantText("The host was wrong; fixed in deploy.sh."), // 8
		codec.Complete(true, 4000, 0.5),                                // 9
	}, usage(8, "claude"))
	add("feature", "parser", []codec.Event{
		codec.UserMessage("speed up the parser"),       // 1
		edit("e2", "/w/parser.go", "slow()", "fast()"), // 2
		codec.AssistantText("Parser is faster now."),   // 3
		codec.Complete(true, 1000, 0.2),                // 4
	}, usage(3, "codex"))
	var long []codec.Event
	for i := range 300 {
		long = append(long, codec.AssistantText(fmt.Sprintf("line %03d of a long session", i)))
	}
	add("main", "long", long, usage(10, "claude"))
	x, err := search.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	x.Close()
	ix, err := insight.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(ctx); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	return path
}

func open(t testing.TB, paths ...string) *History {
	t.Helper()
	h, err := Open(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func must(t *testing.T, a Answer, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(a.Text, secret) {
		t.Fatalf("the secret left the process:\n%s", a.Text)
	}
	return a.Text
}

func wantAll(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s lacks %q:\n%s", what, p, text)
		}
	}
}

// TestTools calls each tool over the crafted history: each answer cites
// its sessions and events with lazuli:// links and never holds the secret.
func TestTools(t *testing.T) {
	h := open(t, crafted(t))
	ctx := context.Background()
	a, err := h.SearchSessions(ctx, SearchArgs{Query: needle})
	text := must(t, a, err)
	wantAll(t, "search_sessions", text, "[S1#4]", "lazuli://open?", "deploy", needle)

	a, err = h.SearchSessions(ctx, SearchArgs{Query: "parser", Agent: "codex"})
	wantAll(t, "search_sessions agent=codex", must(t, a, err), "[S2#")
	a, err = h.SearchSessions(ctx, SearchArgs{Query: "parser", Agent: "claude"})
	wantAll(t, "search_sessions agent=claude", must(t, a, err), "No hits.")
	// Every agent Lazuli runs can be asked for; a name it does not know is
	// refused with the list.
	a, err = h.SearchSessions(ctx, SearchArgs{Query: "parser", Agent: "Gemini"})
	wantAll(t, "search_sessions agent=gemini", must(t, a, err), "No hits.")
	if _, err := h.SearchSessions(ctx, SearchArgs{Query: "parser", Agent: "gemni"}); err == nil ||
		!strings.Contains(err.Error(), "want claude, codex, gemini, qwen, opencode, pi or copilot") {
		t.Errorf("search_sessions agent=gemni: %v", err)
	}

	a, err = h.ReadSession(ctx, ReadArgs{Session: "S1", FromEvent: 3})
	text = must(t, a, err)
	wantAll(t, "read_session", text, "[S1#3]", "[S1#4] **error of Bash**", needle, "[REDACTED:", "(end of the session)")
	if strings.Contains(text, "[S1#2]") {
		t.Errorf("read_session from 3 shows event 2:\n%s", text)
	}

	a, err = h.RecentEdits(ctx, RecentEditsArgs{Path: "deploy.sh"})
	wantAll(t, "recent_edits", must(t, a, err), "[S1#7]", "-host=a", "+host=b")
	a, err = h.FileHistory(ctx, FileHistoryArgs{Path: "parser.go"})
	wantAll(t, "file_history", must(t, a, err), "[S2#2]", "+fast()", "lazuli://open?")
	a, err = h.SessionRefs(ctx, RefsArgs{Session: "S1"})
	wantAll(t, "session_refs", must(t, a, err), "acme/app#42", "[S1#4]")
	a, err = h.Usage(ctx, UsageArgs{By: "backend"})
	wantAll(t, "usage", must(t, a, err), "| claude |", "| codex |")
	a, err = h.Usage(ctx, UsageArgs{By: "session"})
	wantAll(t, "usage by session", must(t, a, err), "| [S1] |", "| [S3] |")
	a, err = h.WhatWasTried(ctx, TriedArgs{Topic: "bash"})
	wantAll(t, "what_was_tried", must(t, a, err), "[S1#")
	a, err = h.Query(ctx, QueryArgs{SQL: "SELECT id, name FROM sessions ORDER BY id", Limit: 2})
	wantAll(t, "query", must(t, a, err), "| 1 | deploy |", "truncated")
}

// TestBadArguments: each bad argument is an ErrBadArgument with a
// sentence, never a panic; a query that writes is refused.
func TestBadArguments(t *testing.T) {
	h := open(t, crafted(t))
	ctx := context.Background()
	calls := map[string]func() (Answer, error){
		"empty query":     func() (Answer, error) { return h.SearchSessions(ctx, SearchArgs{}) },
		"huge limit":      func() (Answer, error) { return h.SearchSessions(ctx, SearchArgs{Query: "deploy", Limit: 1e6}) },
		"bad since":       func() (Answer, error) { return h.SearchSessions(ctx, SearchArgs{Query: "deploy", Since: "yesterday"}) },
		"bad agent":       func() (Answer, error) { return h.SearchSessions(ctx, SearchArgs{Query: "deploy", Agent: "vim"}) },
		"bad session":     func() (Answer, error) { return h.ReadSession(ctx, ReadArgs{Session: "banana"}) },
		"missing session": func() (Answer, error) { return h.ReadSession(ctx, ReadArgs{Session: "S99"}) },
		"other store":     func() (Answer, error) { return h.ReadSession(ctx, ReadArgs{Session: "S1@2"}) },
		"bad cursor":      func() (Answer, error) { return h.ReadSession(ctx, ReadArgs{Paging: Paging{Cursor: "!!"}}) },
		"tiny max_chars":  func() (Answer, error) { return h.Usage(ctx, UsageArgs{By: "day", Paging: Paging{MaxChars: 3}}) },
		"bad by":          func() (Answer, error) { return h.Usage(ctx, UsageArgs{By: "moon"}) },
		"no path":         func() (Answer, error) { return h.FileHistory(ctx, FileHistoryArgs{}) },
		"no topic":        func() (Answer, error) { return h.WhatWasTried(ctx, TriedArgs{}) },
		"write":           func() (Answer, error) { return h.Query(ctx, QueryArgs{SQL: "DELETE FROM events"}) },
		"attach":          func() (Answer, error) { return h.Query(ctx, QueryArgs{SQL: "ATTACH 'x.db' AS x"}) },
		"syntax":          func() (Answer, error) { return h.Query(ctx, QueryArgs{SQL: "SELEKT"}) },
		"cursor of other": func() (Answer, error) {
			return h.Usage(ctx, UsageArgs{Paging: Paging{Cursor: cursor{Tool: ToolQuery, Args: json.RawMessage(`{}`)}.encode()}})
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if _, err := call(); !errors.Is(err, ErrBadArgument) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want one line wrapping ErrBadArgument", err)
			}
		})
	}
}

// TestPaging: a transcript longer than max_chars comes in parts whose
// cursors continue at the next event, and the parts cover every event
// once; a tool's generic cursor continues its text where it was cut.
func TestPaging(t *testing.T) {
	h := open(t, crafted(t))
	ctx := context.Background()
	seen := map[string]int{}
	args := ReadArgs{Session: "S3", Paging: Paging{MaxChars: 2000}}
	parts := 0
	for {
		a, err := h.ReadSession(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		parts++
		if n := len([]rune(a.Text)); n > 2000 {
			t.Fatalf("part %d has %d characters, more than max_chars", parts, n)
		}
		for i := range 300 {
			if strings.Contains(a.Text, fmt.Sprintf("line %03d ", i)) {
				seen[fmt.Sprint(i)]++
			}
		}
		if a.Cursor == "" {
			break
		}
		args = ReadArgs{Paging: Paging{Cursor: a.Cursor, MaxChars: 2000}}
	}
	if parts < 3 || len(seen) != 300 {
		t.Fatalf("%d parts saw %d of 300 events", parts, len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("event line %s shown %d times", k, n)
		}
	}

	whole, err := h.Query(ctx, QueryArgs{SQL: "SELECT seq FROM events WHERE session_id = 3", Limit: 1000})
	if err != nil || whole.Cursor != "" {
		t.Fatalf("whole query: cursor %q, %v", whole.Cursor, err)
	}
	var joined strings.Builder
	p := Paging{MaxChars: 500}
	for i := 0; ; i++ {
		a, err := h.Query(ctx, QueryArgs{SQL: "SELECT seq FROM events WHERE session_id = 3", Limit: 1000, Paging: p})
		if err != nil {
			t.Fatal(err)
		}
		text, _, _ := strings.Cut(a.Text, "\n\n… cut at ")
		joined.WriteString(text)
		if a.Cursor == "" {
			break
		}
		p = Paging{Cursor: a.Cursor, MaxChars: 500}
	}
	if joined.String() != whole.Text {
		t.Errorf("the parts of a cut answer do not join into the whole")
	}
}

// fileSums hashes the files of a folder tree.
func fileSums(t *testing.T, dirs ...string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = sha256.Sum256(b)
			return nil
		})
	}
	return out
}

// TestReadOnly: a session of calls of every tool leaves the store and its
// indexes byte for byte as they were, and creates no file beside them.
func TestReadOnly(t *testing.T) {
	path := crafted(t)
	sx, _ := search.IndexPath(path)
	ix, _ := insight.IndexPath(path)
	dirs := []string{filepath.Dir(path), filepath.Dir(sx), filepath.Dir(ix)}
	before := fileSums(t, dirs...)
	h := open(t, path)
	ctx := context.Background()
	h.SearchSessions(ctx, SearchArgs{Query: needle})
	h.ReadSession(ctx, ReadArgs{Session: "S1", Thinking: true})
	h.RecentEdits(ctx, RecentEditsArgs{})
	h.FileHistory(ctx, FileHistoryArgs{Path: "deploy.sh"})
	h.SessionRefs(ctx, RefsArgs{})
	h.Usage(ctx, UsageArgs{By: "day"})
	h.WhatWasTried(ctx, TriedArgs{Topic: "Bash"})
	h.Query(ctx, QueryArgs{SQL: "SELECT COUNT(*) FROM events"})
	h.Query(ctx, QueryArgs{SQL: "DROP TABLE sessions"})
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	after := fileSums(t, dirs...)
	for p, sum := range before {
		if after[p] != sum {
			t.Errorf("%s changed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok && (filepath.Dir(p) == dirs[0] || p == sx || p == ix) {
			t.Errorf("%s created", p)
		}
	}
}
