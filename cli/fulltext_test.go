package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/internal/nativetree"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

var wordRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{5,}`)

// TestSearchFindsFullToolOutput: after importing the shared fixtures'
// native history, every word that occurs only in what ingestion shortened
// (the full tool output and Write content, nowhere in a stored event or
// summary) is found by search. (Search also matches inside longer words, so
// the hit may be elsewhere; search.TestSearchFullText checks InFull.)
func TestSearchFindsFullToolOutput(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	tree := nativetree.ForTest(t)
	dir := t.TempDir()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	if code, _, errOut := run(t, dir, "import-native", "--store", path, "--claude-dir", tree.ClaudeDir, "--codex-dir", tree.CodexDir); code != 0 {
		t.Fatalf("import-native: %d %s", code, errOut)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sessions, err := st.Sessions().List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	shown, full := map[string]bool{}, map[string]bool{}
	for _, s := range sessions {
		evs, err := st.Events().All(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			js, _ := codec.EncodeEventJSON(e.Event)
			for _, w := range wordRE.FindAllString(strings.ToLower(string(js)), -1) {
				shown[w] = true
			}
		}
		comps, _ := st.Compactions().Of(ctx, s.ID)
		for _, c := range comps {
			for _, w := range wordRE.FindAllString(strings.ToLower(c.Summary), -1) {
				shown[w] = true
			}
		}
		texts, err := st.FullText().Of(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range texts {
			if len(f.Text) > search.MaxFullText {
				continue // only the first MaxFullText bytes are searched
			}
			for _, w := range wordRE.FindAllString(strings.ToLower(f.Text), -1) {
				full[w] = true
			}
		}
	}
	var only []string
	for w := range full {
		if !shown[w] {
			only = append(only, w)
		}
	}
	sort.Strings(only)
	if len(only) < 100 {
		t.Fatalf("only %d words are in full text alone; the fixtures should give thousands", len(only))
	}
	x, err := search.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	missed := 0
	for _, w := range only {
		res, err := x.Search(ctx, w, search.Options{Limit: 1})
		if err != nil {
			t.Fatalf("search %q: %v", w, err)
		}
		if len(res.Hits) == 0 { // the hit may be in a longer word elsewhere: search matches within words
			if missed++; missed <= 5 {
				t.Errorf("%q (only in full tool output) not found: %+v", w, res.Hits)
			}
		}
	}
	if missed > 0 {
		t.Errorf("%d of %d words found only in full tool output were not found", missed, len(only))
	}
	t.Logf("%d words only in full tool output, all found", len(only))
}

// TestFullTextFlagAndCheck: import keeps the full text by default and
// check reports how much room it takes; --no-full-text keeps none.
func TestFullTextFlagAndCheck(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fixture, err := filepath.Abs(fixtures.Dir(t, "transcripts", "B_claude-code-log_03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, _, errOut := run(t, dir, "import", fixture); code != 0 {
		t.Fatalf("import: %d %s", code, errOut)
	}
	code, out, _ := run(t, dir, "check")
	if code != 0 || !strings.Contains(out, "full text:") || !strings.Contains(out, "in the file (Lazuli's own table)") {
		t.Errorf("check: %d\n%s", code, out)
	}
	off := t.TempDir()
	if code, _, errOut := run(t, off, "import", "--no-full-text", fixture); code != 0 {
		t.Fatalf("import --no-full-text: %d %s", code, errOut)
	}
	if code, out, _ := run(t, off, "check"); code != 0 || strings.Contains(out, "full text:") {
		t.Errorf("check after --no-full-text: %d\n%s", code, out)
	}
}
