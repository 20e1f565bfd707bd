package native

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents/copilot"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// copilotHome lays out the captured Copilot CLI home in a temporary
// folder: session-state/ with the two event logs and, beside it, the
// captured session store with its -wal and -shm. It returns the
// session-state folder.
func copilotHome(tb testing.TB) string {
	tb.Helper()
	home := tb.TempDir()
	dir := filepath.Join(home, "session-state")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "copilot", "testdata", "capture", "session-state"))); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "copilot", "testdata", "capture", "session-store.tar.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			tb.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		if err := os.WriteFile(filepath.Join(home, filepath.Base(h.Name)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// storeFiles reads the session store's files (the database, -wal, -shm).
func storeFiles(tb testing.TB, dir string) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(dir), copilotStoreName+suffix))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestCopilotStoreFillsPreviews: an event log cut after its session.start
// line (Copilot killed before the prompt was logged) is named by the
// session store's summary; every session gets the store's branch. The
// store's files stay byte-identical through the scan and the import.
func TestCopilotStoreFillsPreviews(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	dir := copilotHome(t)
	const cut = "3ae6ebc8-51de-4139-b69f-deeb912998b6" // the store's summary: its last prompt
	log := filepath.Join(dir, cut, "events.jsonl")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	if err := os.WriteFile(log, append(first, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	before := storeFiles(t, dir)
	scan := mustScan(t, Options{Dirs: Dirs{Copilot: dir}})
	if len(scan.Sessions) != 2 || len(scan.Skipped) != 0 {
		t.Fatalf("scan: %d sessions, skipped %v", len(scan.Sessions), scan.Skipped)
	}
	for _, n := range scan.Sessions {
		if n.Branch != "main" {
			t.Errorf("%s: branch %q, want the store's main", n.ID, n.Branch)
		}
		switch n.ID {
		case cut:
			if n.FirstPrompt != "How many lines does notes.txt have now?" || !strings.HasPrefix(n.Title(), "How many lines") {
				t.Errorf("cut log: first prompt %q, title %q, want the store's summary", n.FirstPrompt, n.Title())
			}
		default:
			if n.FirstPrompt != "Say hello." {
				t.Errorf("%s: first prompt %q, want the log's own", n.ID, n.FirstPrompt)
			}
		}
	}
	st := mustOpenStore(t)
	mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "elsewhere"})
	mustCheck(t, st)
	for i, after := range storeFiles(t, dir) {
		if !bytes.Equal(before[i], after) {
			t.Errorf("the session store's file %d changed", i)
		}
	}
}

// TestCopilotStoreUnreadable: a session-store.db that is not a database is
// listed as skipped, the logs are previewed as without it, and the file is
// left as it was.
func TestCopilotStoreUnreadable(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	home := t.TempDir()
	dir := filepath.Join(home, "session-state")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "copilot", "testdata", "capture", "session-state"))); err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte("not a database\n"), 400)
	path := filepath.Join(home, copilotStoreName)
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	scan := mustScan(t, Options{Dirs: Dirs{Copilot: dir}})
	if len(scan.Sessions) != 2 || len(scan.Skipped) != 1 || scan.Skipped[0].Path != path {
		t.Fatalf("scan: %d sessions, skipped %v", len(scan.Sessions), scan.Skipped)
	}
	if !strings.Contains(scan.Skipped[0].Reason, "session store") {
		t.Errorf("reason %q", scan.Skipped[0].Reason)
	}
	for _, n := range scan.Sessions {
		if n.FirstPrompt == "" || n.Branch != "" {
			t.Errorf("preview %+v", n)
		}
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, junk) {
		t.Error("the unreadable store was changed")
	}
}

// TestCopilotStoreImportsMissingLog: a session whose event log was deleted
// is imported from the session store's turns (as far as they go: the
// store keeps the last prompt and its answer), named by its summary, in
// its folder; a second import finds nothing new; the session whose log is
// there is imported from the log alone; the store's files stay
// byte-identical.
func TestCopilotStoreImportsMissingLog(t *testing.T) {
	ctx := context.Background()
	t.Setenv(store.CacheDirEnv, t.TempDir())
	dir := copilotHome(t)
	const gone = "3ae6ebc8-51de-4139-b69f-deeb912998b6"
	if err := os.RemoveAll(filepath.Join(dir, gone)); err != nil {
		t.Fatal(err)
	}
	before := storeFiles(t, dir)
	opts := Options{Dirs: Dirs{Copilot: dir}, PreviewCache: filepath.Join(t.TempDir(), "previews")}
	scan := mustScan(t, opts)
	if len(scan.Sessions) != 2 || len(scan.Skipped) != 0 {
		t.Fatalf("scan: %+v, skipped %v", scan.Sessions, scan.Skipped)
	}
	var mirrored Session
	for _, n := range scan.Sessions {
		if n.ID == gone {
			mirrored = n
		}
	}
	if strings.HasPrefix(mirrored.Path, dir) || !strings.HasSuffix(mirrored.Cwd, "/work") || mirrored.Branch != "main" ||
		mirrored.FirstPrompt != "How many lines does notes.txt have now?" || mirrored.Started.IsZero() {
		t.Fatalf("mirrored session %+v", mirrored)
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(res); got[Imported] != 2 {
		t.Fatalf("outcomes %v: %+v", got, res)
	}
	mustCheck(t, st)
	// The mirror stands for the stored session: it bears the session's
	// last change, and so does the imported session's last activity.
	ss, err := copilot.ReadStore(ctx, filepath.Join(filepath.Dir(dir), copilotStoreName))
	if err != nil {
		t.Fatal(err)
	}
	var last time.Time
	for _, s := range ss {
		if s.ID == gone {
			last = storeSessionTime(s)
		}
	}
	if fi, err := os.Stat(mirrored.Path); err != nil || last.IsZero() || !fi.ModTime().Equal(last) {
		t.Errorf("mirror dated %v (%v), want the session's last change %v", fi.ModTime(), err, last)
	}
	for _, r := range res {
		if r.ID != gone {
			continue
		}
		if s, err := st.Sessions().Get(ctx, r.SessionID); err != nil || s.LastActive != last.UTC().Format(store.TimeFormat) {
			t.Errorf("last active %q (%v), want %s", s.LastActive, err, last.UTC().Format(store.TimeFormat))
		}
		evs, err := st.Events().All(ctx, r.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []codec.Kind
		for _, e := range evs {
			kinds = append(kinds, e.Event.Kind)
		}
		want := []codec.Kind{codec.KindInit, codec.KindUserMessage, codec.KindAssistantText, codec.KindComplete}
		if len(evs) != len(want) || evs[2].Event.Text != "notes.txt has 2 lines." || evs[1].Event.Content != "How many lines does notes.txt have now?" || !evs[3].Event.Success {
			t.Fatalf("events %v, want %v", kinds, want)
		}
		for i := range want {
			if kinds[i] != want[i] {
				t.Errorf("events %v, want %v", kinds, want)
			}
		}
	}
	rescan := mustScan(t, opts) // the previews from the cache
	for _, n := range rescan.Sessions {
		if n.ID == gone && (n.Path != mirrored.Path || n.FirstPrompt != mirrored.FirstPrompt) {
			t.Errorf("rescan %+v, want %+v", n, mirrored)
		}
	}
	again := mustImport(t, st, rescan.Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(again); got[Unchanged] != 2 {
		t.Errorf("re-import outcomes %v, want both unchanged", got)
	}
	// The log back: the session is read from it, and its mirror removed.
	src := filepath.Join("..", "copilot", "testdata", "capture", "session-state", gone)
	if err := os.CopyFS(filepath.Join(dir, gone), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, n := range mustScan(t, opts).Sessions {
		if n.ID == gone && !strings.HasPrefix(n.Path, dir) {
			t.Errorf("with its log back, %s is read from %s", gone, n.Path)
		}
	}
	if _, err := os.Stat(mirrored.Path); err == nil {
		t.Errorf("the mirror %s was kept after its log came back", mirrored.Path)
	}
	for i, after := range storeFiles(t, dir) {
		if !bytes.Equal(before[i], after) {
			t.Errorf("the session store's file %d changed", i)
		}
	}
}

// BenchmarkCopilotScanStore measures a scan of the captured Copilot home
// with its session store beside session-state (the store is copied and
// read on every scan) and without it: ms/scan each.
func BenchmarkCopilotScanStore(b *testing.B) {
	b.Setenv(store.CacheDirEnv, b.TempDir())
	for _, withStore := range []bool{false, true} {
		name := "logs-only"
		if withStore {
			name = "with-store"
		}
		b.Run(name, func(b *testing.B) {
			dir := copilotHome(b)
			if !withStore {
				for _, suffix := range []string{"", "-wal", "-shm"} {
					if err := os.Remove(filepath.Join(filepath.Dir(dir), copilotStoreName+suffix)); err != nil {
						b.Fatal(err)
					}
				}
			}
			opts := Options{Dirs: Dirs{Copilot: dir}}
			b.ResetTimer()
			for range b.N {
				if _, err := Scan(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/scan")
		})
	}
}
