package native

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

func TestQwenHistoryImports(t *testing.T) {
	dir := t.TempDir()
	copyHistory := func(scenario string) string {
		copyTreeForTest(t, filepath.Join("..", "qwen", "testdata", "capture", scenario+".home", ".qwen"), filepath.Join(dir, ".qwen"))
		return filepath.Join(dir, ".qwen", "projects")
	}
	hist := copyHistory("multitool")
	opts := Options{Dirs: Dirs{Qwen: hist}, Project: "/tmp/lazuli-capture-qwen/proj"}
	scan := mustScan(t, opts)
	if len(scan.Sessions) != 1 {
		t.Fatalf("sessions %+v skipped %+v", scan.Sessions, scan.Skipped)
	}
	n := scan.Sessions[0]
	if n.Agent != Qwen || n.Cwd != "/tmp/lazuli-capture-qwen/proj" || n.FirstPrompt != "Turn notes.txt into a report" || len(n.ID) != 36 || n.Started.IsZero() {
		t.Errorf("preview %+v", n)
	}
	st := mustOpenStore(t)
	ctx := context.Background()
	res := mustImport(t, st, scan.Sessions, ImportOptions{})
	if len(res) != 1 || res[0].Outcome != Imported {
		t.Fatalf("import %+v", res)
	}
	records, _ := st.Native().Imports(ctx)
	if res := mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{Records: records}); res[0].Outcome != Unchanged {
		t.Errorf("re-import %+v", res)
	}
	copyHistory("apierror") // the resumed turn appended, and a failed session
	records, _ = st.Native().Imports(ctx)
	res = mustImport(t, st, mustScan(t, opts).Sessions, ImportOptions{Records: records})
	var appended, failed bool
	for _, r := range res {
		evs, _ := st.Events().All(ctx, r.SessionID)
		last := evs[len(evs)-1].Event
		switch r.Outcome {
		case Appended:
			var prompts, completes int
			for _, e := range evs {
				switch e.Event.Kind {
				case codec.KindUserMessage:
					prompts++
				case codec.KindComplete:
					completes++
				}
			}
			appended = prompts == 2 && completes == 2
		case Imported:
			failed = last.Kind == codec.KindComplete && !last.Success
		}
	}
	if !appended || !failed {
		t.Errorf("after the resume and the API error: %+v", res)
	}
	usage, _ := st.Usage().Rows(ctx, 0)
	if len(usage) != 5 || usage[0].Backend != "qwen" {
		t.Errorf("usage %d rows", len(usage))
	}
}
