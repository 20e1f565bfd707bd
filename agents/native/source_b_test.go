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

	"github.com/lazuli-app/lazuli/agents/opencode"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// copyTree copies the captured history under src (relative to the
// repository's agents folder) to a temporary folder.
func copyTree(tb testing.TB, src string) string {
	tb.Helper()
	dst := tb.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", src))); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// TestImportPiAndCopilot scans and imports the captured Pi sessions and
// Copilot CLI event logs, scoped to the folder they ran in, then imports
// again: nothing changed, nothing is read.
func TestImportPiAndCopilot(t *testing.T) {
	ctx := context.Background()
	piDir := copyTree(t, "pi/testdata/capture/sessions")
	cpDir := copyTree(t, "copilot/testdata/capture/session-state")
	for _, c := range []struct {
		agent, dir, workSuffix string
	}{{Pi, piDir, "TestCapturepi"}, {Copilot, cpDir, "TestCapturecopilot"}} {
		t.Run(c.agent, func(t *testing.T) {
			scan := mustScan(t, Options{Dirs: Dirs{c.agent: c.dir}})
			if len(scan.Sessions) != 2 || len(scan.Skipped) != 0 {
				t.Fatalf("scan: %d sessions, skipped %v", len(scan.Sessions), scan.Skipped)
			}
			project := scan.Sessions[0].Cwd
			if !strings.Contains(project, c.workSuffix) || !strings.HasSuffix(project, "/work") {
				t.Fatalf("cwd %q", project)
			}
			for _, n := range scan.Sessions {
				if n.ID == "" || n.FirstPrompt == "" || n.Started.IsZero() || n.Agent != c.agent {
					t.Errorf("preview %+v", n)
				}
			}
			if got := mustScan(t, Options{Dirs: Dirs{c.agent: c.dir}, Project: "/elsewhere"}); len(got.Sessions) != 0 {
				t.Errorf("a scan of another project found %d sessions", len(got.Sessions))
			}
			st := mustOpenStore(t)
			res := mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "main"})
			want := 2
			if c.agent == Copilot {
				want = 3 // and its sub-agent (TestImportCopilotSubagent)
			}
			if got := outcomes(res); got[Imported] != want {
				t.Fatalf("outcomes %v: %+v", got, res)
			}
			mustCheck(t, st)
			for _, r := range res {
				evs, err := st.Events().All(ctx, r.SessionID)
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) != r.Events || evs[0].Event.Kind != codec.KindInit || evs[len(evs)-1].Event.Kind != codec.KindComplete {
					t.Errorf("%s: %d events stored, result says %d", r.ID, len(evs), r.Events)
				}
			}
			again := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{c.agent: c.dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
			if got := outcomes(again); got[Unchanged] != 2 {
				t.Errorf("re-import outcomes %v, want both unchanged", got)
			}
		})
	}
}

// unpackOpenCode unpacks the captured OpenCode database with its -wal and
// -shm into a folder laid out as ~/.local/share/opencode.
func unpackOpenCode(tb testing.TB) string {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "opencode", "testdata", "capture", "opencode-db.tar.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
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
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(h.Name)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestImportOpenCode: the database is mirrored into the cache, one file
// per session, and imported; a second import reads nothing new, and the
// database is left as it was.
func TestImportOpenCode(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	dir := unpackOpenCode(t)
	wal, _ := os.ReadFile(filepath.Join(dir, "opencode.db-wal"))
	scan := mustScan(t, Options{Dirs: Dirs{OpenCode: dir}})
	if len(scan.Sessions) != 2 || len(scan.Skipped) != 0 { // and a sub-agent (TestImportOpenCodeSubagent)
		t.Fatalf("scan: %+v, skipped %v", scan.Sessions, scan.Skipped)
	}
	// A session starts when OpenCode's database says it was created, not
	// when Lazuli wrote its mirror.
	created, updated := openCodeTimes(t, dir)
	for _, n := range scan.Sessions {
		if !strings.HasPrefix(n.ID, "ses_") || !strings.HasSuffix(n.Cwd, "/work") || n.FirstPrompt == "" {
			t.Errorf("preview %+v", n)
		}
		if want, ok := created[n.ID]; !ok || !n.Started.Equal(want) {
			t.Errorf("%s started %v, want %v (time_created)", n.ID, n.Started, want)
		}
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(res); got[Imported] != 3 {
		t.Fatalf("outcomes %v", got)
	}
	mustCheck(t, st)
	for _, r := range res {
		s, err := st.Sessions().Get(context.Background(), r.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if want := created[r.ID].Format(store.TimeFormat); s.Created != want {
			t.Errorf("%s stored as created %s, want %s", r.ID, s.Created, want)
		}
		// Its last activity is OpenCode's last change to it, not the import.
		if want := updated[r.ID].Format(store.TimeFormat); s.LastActive != want {
			t.Errorf("%s last active %s, want %s (time_updated)", r.ID, s.LastActive, want)
		}
	}
	// Mirrors an older Lazuli wrote bear the time of their import: the next
	// import dates them as their sessions, and finds nothing new in them.
	mirrors, _ := filepath.Glob(filepath.Join(filepath.Dir(scan.Sessions[0].Path), "*.jsonl"))
	if len(mirrors) != 3 {
		t.Fatalf("mirrors %v", mirrors)
	}
	now := time.Now()
	for _, m := range mirrors {
		if err := os.Chtimes(m, now, now); err != nil {
			t.Fatal(err)
		}
	}
	again := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{OpenCode: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(again); got[Unchanged] != 3 {
		t.Errorf("re-import outcomes %v, want all unchanged", got)
	}
	for _, r := range res {
		s, err := st.Sessions().Get(context.Background(), r.SessionID)
		if want := updated[r.ID].Format(store.TimeFormat); err != nil || s.LastActive != want {
			t.Errorf("after re-import, %s last active %s (%v), want %s", r.ID, s.LastActive, err, want)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "opencode.db-wal")); !bytes.Equal(now, wal) {
		t.Error("the import changed OpenCode's WAL")
	}
	if _, err := Scan(context.Background(), Options{Dirs: Dirs{OpenCode: t.TempDir()}}); err == nil || !strings.Contains(err.Error(), "no opencode.db in it") {
		t.Errorf("an empty folder: %v", err)
	}
}

// TestOpenCodeMirrorGrows: a mirror holds no message OpenCode is still
// writing, so it only grows while OpenCode adds messages.
func TestOpenCodeMirrorGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	head := []byte(`{"type":"opencode.session","id":"ses_1"}`)
	user := []byte(`{"type":"opencode.message","id":"m1","info":{"role":"user"}}`)
	open := []byte(`{"type":"opencode.message","id":"m2","info":{"role":"assistant","time":{"created":1}}}`)
	done := []byte(`{"type":"opencode.message","id":"m2","info":{"role":"assistant","time":{"created":1,"completed":2}}}`)
	if got := settled([][]byte{head, user, open}); len(got) != 2 {
		t.Fatalf("settled kept %d lines, want 2", len(got))
	}
	if err := writeMirror(path, settled([][]byte{head, user, open}), time.Time{}); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	if err := writeMirror(path, settled([][]byte{head, user, done}), time.Time{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != string(head)+"\n"+string(user)+"\n"+string(done)+"\n" || !bytes.HasPrefix(b, first) {
		t.Errorf("mirror %q after %q, want the completed message added after the first", b, first)
	}
}

// openCodeTimes reads each session's time_created and time_updated from
// the database in dir, by id.
func openCodeTimes(t *testing.T, dir string) (created, updated map[string]time.Time) {
	t.Helper()
	db, err := opencode.OpenDB(context.Background(), filepath.Join(dir, "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ss, err := db.Sessions(context.Background())
	if err != nil || len(ss) == 0 {
		t.Fatalf("sessions: %d, %v", len(ss), err)
	}
	created, updated = map[string]time.Time{}, map[string]time.Time{}
	for _, s := range ss {
		created[s.ID], updated[s.ID] = time.UnixMilli(s.Created).UTC(), time.UnixMilli(s.Updated).UTC()
	}
	return created, updated
}
