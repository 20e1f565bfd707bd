package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// makeSearchStore writes a store in dir/.azureal with one session whose
// events hold words to find.
func makeSearchStore(t *testing.T, dir, name string, texts ...string) string {
	t.Helper()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var evs []codec.Event
	for _, s := range texts {
		evs = append(evs, codec.AssistantText(s))
	}
	if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", name, evs); err != nil {
		t.Fatal(err)
	}
	return path
}

// searchPage is the JSON answer of search --json.
type searchPage struct {
	Hits       []map[string]any `json:"hits"`
	Sessions   []map[string]any `json:"sessions"`
	More       bool             `json:"more"`
	NextOffset *int             `json:"next_offset"`
	Partial    bool             `json:"partial"`
	Note       *string          `json:"note"`
}

// searchHits decodes a search --json answer and returns its hits.
func searchHits(t *testing.T, out string) []map[string]any {
	t.Helper()
	var p searchPage
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	return p.Hits
}

func TestSearchJSON(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	dir := t.TempDir()
	path := makeSearchStore(t, dir, "parser work", "the Parser fails on NEAR(x", "unrelated", "go test ./parser/...")
	before := fileHash(t, path)
	code, out, errOut := run(t, dir, "search", "--json", "parser")
	if code != 0 {
		t.Fatalf("search exit %d: %s", code, errOut)
	}
	hits := searchHits(t, out)
	if len(hits) != 2 {
		t.Fatalf("search --json = %d hits, want 2:\n%s", len(hits), out)
	}
	for _, key := range []string{"session_id", "display_name", "worktree", "seq", "kind", "snippet", "store", "time", "highlights"} {
		if _, ok := hits[0][key]; !ok {
			t.Errorf("search --json element lacks %q", key)
		}
	}
	h := hits[0]
	if h["session_id"] != 1.0 || h["display_name"] != "parser work" || h["worktree"] != "main" || h["seq"] != 3.0 ||
		h["kind"] != "AssistantText" || h["snippet"] != "go test ./parser/..." || h["store"] != path {
		t.Errorf("newest hit = %v", h)
	}
	if hl, _ := h["highlights"].([]any); len(hl) != 1 {
		t.Errorf("highlights = %v", h["highlights"])
	}
	code, out, _ = run(t, dir, "search", "--json", "no such words")
	if code != 0 || strings.TrimSpace(out) != `{"more":false,"partial":false,"note":"","hits":[]}` {
		t.Errorf("search without hits: exit %d, %q", code, out)
	}
	code, out, _ = run(t, dir, "search", "--json", "NEAR(x")
	if code != 0 || !strings.Contains(out, `"seq":1`) {
		t.Errorf("search NEAR(x: exit %d\n%s", code, out)
	}
	code, out, errOut = run(t, dir, "search", "--limit", "1", "parser")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "S1 parser work · main · ") ||
		!strings.Contains(errOut, "there are more") {
		t.Errorf("search --limit 1: exit %d\n%s\n%s", code, out, errOut)
	}
	if fileHash(t, path) != before {
		t.Error("search changed the store")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the store's folder holds %d files", len(entries))
	}
}

func TestSearchStoresAndErrors(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	a, b := t.TempDir(), t.TempDir()
	makeSearchStore(t, a, "in a", "sharedword alpha")
	makeSearchStore(t, b, "in b", "sharedword beta")
	code, out, errOut := run(t, a, "search", "--store", a, "--store", b, "--json", "sharedword")
	if code != 0 || !strings.Contains(out, `"in a"`) || !strings.Contains(out, `"in b"`) {
		t.Errorf("two stores: exit %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"search"}, ExitUsage, "missing QUERY"},
		{[]string{"search", "  "}, ExitUsage, "missing QUERY"},
		{[]string{"search", "x"}, ExitUsage, "at least 2 characters"},
		{[]string{"search", "--limit", "0", "abc"}, ExitUsage, "--limit"},
		{[]string{"search", "--store", a, "--project", a, "abc"}, ExitUsage, "do not go together"},
		{[]string{"search", "--store", filepath.Join(a, "missing.azs"), "abc"}, ExitError, "no session store"},
		{[]string{"search", "--project", t.TempDir(), "abc"}, ExitError, "no session store"},
		{[]string{"reindex", "extra"}, ExitUsage, "unexpected argument"},
	} {
		code, _, errOut := run(t, a, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}

func TestSearchWithoutCache(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(store.CacheDirEnv, filepath.Join(file, "cache"))
	dir := t.TempDir()
	makeSearchStore(t, dir, "s", "findme here")
	code, out, errOut := run(t, dir, "search", "--json", "findme")
	if code != 0 || !strings.Contains(out, "findme here") || !strings.Contains(errOut, "search index unavailable") {
		t.Errorf("without a cache folder: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestReindex(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	dir := t.TempDir()
	path := makeSearchStore(t, dir, "s", "one", "two", "three")
	before := fileHash(t, path)
	code, out, errOut := run(t, dir, "reindex")
	if code != 0 || !strings.Contains(out, path+": 3 events read, 3 texts indexed (0 compaction summaries)") {
		t.Errorf("reindex: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := run(t, dir, "search", "--json", "three"); code != 0 || !strings.Contains(out, `"seq":3`) {
		t.Errorf("search after reindex: exit %d\n%s", code, out)
	}
	if fileHash(t, path) != before {
		t.Error("reindex changed the store")
	}
}

// TestSearchDamagedIndex: a damaged index (here: a page of it
// overwritten) is rebuilt by the search that finds it, which says so in
// one line on stderr and still answers in full; the next search is quiet.
func TestSearchDamagedIndex(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	dir := t.TempDir()
	texts := make([]string, 50)
	for i := range texts {
		texts[i] = "a parser error in step " + strings.Repeat("x", i%7)
	}
	makeSearchStore(t, dir, "damaged", texts...)
	if code, _, errOut := run(t, dir, "search", "parser"); code != 0 {
		t.Fatalf("search: %s", errOut)
	}
	matches, _ := filepath.Glob(filepath.Join(os.Getenv(store.CacheDirEnv), "index", "*.db"))
	if len(matches) != 1 {
		t.Fatalf("index files: %v", matches)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < len(b); i++ { // everything after the first page
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(matches[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, dir, "search", "--json", "--limit", "100", "parser")
	var page searchPage
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil || len(page.Hits) != 50 {
		t.Fatalf("search on a damaged index: exit %d, %d hits, stderr %q", code, len(page.Hits), errOut)
	}
	if n := strings.Count(errOut, "was damaged; it was rebuilt"); n != 1 || strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr = %q, want one line saying the index was rebuilt", errOut)
	}
	if _, _, errOut := run(t, dir, "search", "parser"); strings.Contains(errOut, "damaged") {
		t.Errorf("the next search says again: %q", errOut)
	}
}

// TestSearchPages: --limit and --offset page the hits, the JSON says
// whether more follow and where the next page starts, text mode says it on
// stderr; --sessions lists each matching session once, ranked by hits.
func TestSearchPages(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		name string
		hits int
	}{{"two", 2}, {"three", 3}, {"one", 1}} {
		var evs []codec.Event
		for i := range s.hits {
			evs = append(evs, codec.AssistantText(fmt.Sprintf("pagedword %d", i)), codec.AssistantText("other"))
		}
		if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", s.name, evs); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	var all []string
	for offset := 0; ; offset += 4 {
		code, out, errOut := run(t, dir, "search", "--json", "--limit", "4", "--offset", strconv.Itoa(offset), "pagedword")
		var p searchPage
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil || p.Note == nil || p.Partial {
			t.Fatalf("search --offset %d: exit %d\n%s%s", offset, code, out, errOut)
		}
		for _, h := range p.Hits {
			all = append(all, fmt.Sprint(h["display_name"], " ", h["seq"]))
		}
		if wantMore := offset == 0; p.More != wantMore || (p.More && (p.NextOffset == nil || *p.NextOffset != 4)) ||
			(!p.More && p.NextOffset != nil) {
			t.Fatalf("search --offset %d: more %v next_offset %v\n%s", offset, p.More, p.NextOffset, out)
		}
		if !p.More {
			break
		}
	}
	want := "one 1 three 5 three 3 three 1 two 3 two 1"
	if strings.Join(all, " ") != want {
		t.Errorf("search pages = %q, want %q", strings.Join(all, " "), want)
	}
	code, out, errOut := run(t, dir, "search", "--limit", "2", "--offset", "1", "pagedword")
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(errOut, "hits 2–3 shown; there are more: --offset 3 shows the next ones") {
		t.Errorf("search --limit 2 --offset 1: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, dir, "search", "--json", "--sessions", "pagedword")
	var p searchPage
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || p.More || p.Hits != nil {
		t.Fatalf("search --sessions: exit %d\n%s", code, out)
	}
	var ranked []string
	for _, s := range p.Sessions {
		newest, _ := s["newest"].(map[string]any)
		ranked = append(ranked, fmt.Sprint(s["display_name"], " ", s["hits"], " ", newest["seq"], " ", newest["snippet"]))
	}
	if got := strings.Join(ranked, ", "); got != "three 3 5 pagedword 2, two 2 3 pagedword 1, one 1 1 pagedword 0" {
		t.Errorf("search --sessions = %q", got)
	}
	code, out, errOut = run(t, dir, "search", "--sessions", "--limit", "1", "pagedword")
	if code != 0 || !strings.HasPrefix(out, "S2 three · main · ") || !strings.Contains(out, "· 3 hits · newest #5 AssistantText\n") ||
		!strings.Contains(errOut, "sessions 1–1 shown; there are more: --offset 1") {
		t.Errorf("search --sessions --limit 1: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := run(t, dir, "search", "--offset", "-1", "pagedword"); code != ExitUsage || !strings.Contains(errOut, "--offset") {
		t.Errorf("search --offset -1: exit %d, %q", code, errOut)
	}
}
