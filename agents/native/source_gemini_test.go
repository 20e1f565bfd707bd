package native

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// geminiCapture is the Gemini CLI history agents/gemini's captures hold
// after scenario.
func geminiCapture(scenario string) string {
	return filepath.Join("..", "gemini", "testdata", "capture", scenario+".home", ".gemini")
}

// copyGeminiHistory copies a captured ~/.gemini to dir/.gemini, replacing
// what is there, and returns its history folder (tmp).
func copyGeminiHistory(t *testing.T, scenario, dir string) string {
	t.Helper()
	src := geminiCapture(scenario)
	dst := filepath.Join(dir, ".gemini")
	copyTreeForTest(t, src, dst)
	return filepath.Join(dst, "tmp")
}

func TestGeminiHistoryImports(t *testing.T) {
	dir := t.TempDir()
	hist := copyGeminiHistory(t, "multitool", dir)
	opts := Options{Dirs: Dirs{Gemini: hist}, Project: "/tmp/lazuli-capture-gemini/proj"}
	scan := mustScan(t, opts)
	if len(scan.Sessions) != 1 {
		t.Fatalf("sessions %+v", scan.Sessions)
	}
	n := scan.Sessions[0]
	if n.Agent != Gemini || n.Cwd != "/tmp/lazuli-capture-gemini/proj" || n.FirstPrompt != "Turn notes.txt into a report" ||
		n.Started.IsZero() || len(n.ID) != 36 || n.Own != "" {
		t.Errorf("preview %+v", n)
	}
	if other := mustScan(t, Options{Dirs: Dirs{Gemini: hist}, Project: "/elsewhere"}); len(other.Sessions) != 0 {
		t.Errorf("another project sees %d sessions", len(other.Sessions))
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, scan.Sessions, ImportOptions{})
	if len(res) != 1 || res[0].Outcome != Imported {
		t.Fatalf("import %+v", res)
	}
	ctx := context.Background()
	evs, err := st.Events().All(ctx, res[0].SessionID)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, string(e.Event.Kind))
	}
	if got := strings.Join(kinds, " "); !strings.HasPrefix(got, "Init UserMessage AssistantText ToolCall ToolResult") ||
		!strings.HasSuffix(got, "AssistantText Complete") {
		t.Errorf("stored %s", got)
	}
	usage, err := st.Usage().Rows(ctx, 0)
	if err != nil || len(usage) != 3 || usage[0].Backend != "gemini" || usage[0].Model != "gemini-2.5-pro" {
		t.Errorf("usage %+v (%v), want one row per reply", usage, err)
	}

	// Unchanged: nothing to do, from the stat alone.
	records, _ := st.Native().Imports(ctx)
	again := mustScan(t, opts)
	if st := again.Sessions[0].State(records); st != StateUpToDate {
		t.Errorf("state %s", st)
	}
	if res := mustImport(t, st, again.Sessions, ImportOptions{Records: records}); res[0].Outcome != Unchanged {
		t.Errorf("re-import %+v", res)
	}

	// The resumed session appended to the same file: its new turn is
	// appended to the same Lazuli session.
	copyGeminiHistory(t, "resumed", dir)
	records, _ = st.Native().Imports(ctx)
	res = mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{Records: records})
	if len(res) != 1 || res[0].Outcome != Appended {
		t.Fatalf("resumed import %+v", res)
	}
	evs, _ = st.Events().All(ctx, res[0].SessionID)
	var prompts, completes int
	for _, e := range evs {
		switch e.Event.Kind {
		case codec.KindUserMessage:
			prompts++
		case codec.KindComplete:
			completes++
		}
	}
	if prompts != 2 || completes != 2 {
		t.Errorf("after resume: %d prompts, %d completes in %d events", prompts, completes, len(evs))
	}

	// The API error's session: its prompt is kept and the turn fails.
	copyGeminiHistory(t, "apierror", dir)
	records, _ = st.Native().Imports(ctx)
	res = mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{Records: records})
	var failed bool
	for _, r := range res {
		if r.Outcome == Imported {
			evs, _ := st.Events().All(ctx, r.SessionID)
			last := evs[len(evs)-1].Event
			failed = last.Kind == codec.KindComplete && !last.Success && evs[len(evs)-2].Event.Content == "Say hello"
		} else if r.Outcome != Unchanged {
			t.Errorf("the first session: %+v", r)
		}
	}
	if !failed {
		t.Errorf("the failed session: %+v", res)
	}
}

// copyTreeForTest copies the files below src to dst, replacing dst.
func copyTreeForTest(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
