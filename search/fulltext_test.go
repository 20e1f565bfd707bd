package search

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestSearchFullText: a word that only the full tool output or Write
// content holds (ingestion shortened it away) is found, by the index and
// by a scan, and the hit says where in the full text it is; a word the
// card shows is not marked so.
func TestSearchFullText(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	var lines []string
	for i := range 10 {
		lines = append(lines, "row "+strings.Repeat("x", i))
	}
	lines[4] = "TypeError: handleSubmit is undefined"
	lines[9] = "visibleTail done"
	path := "/w/a.go"
	write, _ := json.Marshal(map[string]string{"file_path": path, "content": "package a\n\nfunc gribbleWrite() {}\n"})
	mustSession(t, st, "full",
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"npm test"}`)),
		codec.ToolResult("t1", "Bash", nil, strings.Join(lines, "\n"), true),
		codec.ToolCall("t2", "Write", &path, write))
	x := mustIndex(t, st)
	for _, q := range []string{"handleSubmit", "gribbleWrite", "visibleTail"} {
		for name, search := range map[string]func() (Result, error){
			"index": func() (Result, error) { return x.Search(ctx, q, Options{Limit: 10}) },
			"scan":  func() (Result, error) { return Scan(ctx, st, q, Options{Limit: 10}) },
		} {
			r, err := search()
			if err != nil || len(r.Hits) != 1 {
				t.Errorf("%s %q: %+v, %v", name, q, r.Hits, err)
				continue
			}
			h := r.Hits[0]
			switch q {
			case "handleSubmit":
				full := strings.Join(lines, "\n")
				if h.Seq != 2 || !h.InFull || full[h.Offset:h.Offset+len(q)] != q || !strings.Contains(h.Snippet, "TypeError") {
					t.Errorf("%s %q: %+v", name, q, h)
				}
			case "gribbleWrite":
				if h.Seq != 3 || !h.InFull {
					t.Errorf("%s %q: %+v", name, q, h)
				}
			case "visibleTail":
				if h.Seq != 2 || h.InFull {
					t.Errorf("%s %q: %+v (the card shows it)", name, q, h)
				}
			}
		}
	}
}

// TestFullTextIndexReopens: an index holding full text is not taken for
// damaged when it is opened again. Open reads back a sample of rows by
// their own 4-grams; it used to read only the text the card shows, whose
// last 4-gram (its last three bytes and the end mark) an event with full
// text does not have, so every Open rebuilt such an index.
func TestFullTextIndexReopens(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	var lines []string
	for i := range 12 {
		lines = append(lines, "/w/"+strings.Repeat("y", i)+"_globbed.go")
	}
	mustSession(t, st, "full", // Glob's result shows as "12 files"
		codec.ToolCall("t1", "Glob", nil, json.RawMessage(`{"pattern":"**/*.go"}`)),
		codec.ToolResult("t1", "Glob", nil, strings.Join(lines, "\n"), false))
	x := mustIndex(t, st)
	if r := mustSearch(t, x, "yyyyyyyyyyy_globbed"); len(r.Hits) != 1 || !r.Hits[0].InFull {
		t.Fatalf("the full text is not indexed: %+v", r.Hits)
	}
	x.Close()
	x, err := Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if s := mustUpdate(t, x); s.Damaged || s.Rebuilt {
		t.Fatalf("the index was rebuilt when opened again: %+v", s)
	}
}
