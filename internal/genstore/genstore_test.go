package genstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// smallOptions is a store that takes about a second to generate.
var smallOptions = Options{Sessions: 20, Events: 5000, Big: 1000, Seed: 1}

func mustCreate(t *testing.T, opts Options) (string, Stats) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sessions.azs")
	st, err := Create(context.Background(), path, opts, false)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return path, st
}

func mustOpen(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatalf("OpenReadOnly: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCreate(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	path, stats := mustCreate(t, smallOptions)
	s := mustOpen(t, path)

	t.Run("Check", func(t *testing.T) {
		rep, err := s.Check(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The only finding: the usage table, a row per completed turn.
		if !rep.OK() || len(rep.Findings) != 1 || rep.Findings[0].Code != "usage" ||
			rep.Findings[0].Count != stats.Kinds[codec.KindComplete] {
			t.Fatalf("Check: ok %v, findings %+v", rep.OK(), rep.Findings)
		}
		if rep.Sessions != 20 || rep.Events != 5000 || rep.Compactions != int64(stats.Compactions) {
			t.Errorf("Check counts = %d sessions, %d events, %d compactions; want 20, 5000, %d",
				rep.Sessions, rep.Events, rep.Compactions, stats.Compactions)
		}
	})

	t.Run("Stats", func(t *testing.T) {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Bytes != fi.Size() || stats.PageSize != 4096 || stats.Pages != fi.Size()/4096 {
			t.Errorf("Bytes, PageSize, Pages = %d, %d, %d; file is %d bytes", stats.Bytes, stats.PageSize, stats.Pages, fi.Size())
		}
		if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s.tmp left behind (%v)", path, err)
		}
		sum := 0
		for _, n := range stats.Kinds {
			sum += n
		}
		if sum != 5000 || stats.Kinds[codec.KindUserMessage] == 0 || stats.Kinds[codec.KindToolCall] != stats.Kinds[codec.KindToolResult] {
			t.Errorf("Kinds = %v", stats.Kinds)
		}
	})

	t.Run("Sessions", func(t *testing.T) {
		list, err := s.Sessions().List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 20 {
			t.Fatalf("ListSessions = %d sessions, want 20", len(list))
		}
		total := int64(0)
		for _, sess := range list {
			total += sess.EventCount
			if want := int64(stats.Lengths[sess.ID-1]); sess.EventCount != want {
				t.Errorf("S%d: %d events, Stats.Lengths says %d", sess.ID, sess.EventCount, want)
			}
			if sess.ID == stats.BigSession && sess.EventCount != 1000 {
				t.Errorf("big session S%d has %d events, want 1000", sess.ID, sess.EventCount)
			}
		}
		if total != 5000 {
			t.Errorf("events in all sessions = %d, want 5000", total)
		}
	})

	t.Run("Compactions", func(t *testing.T) {
		if stats.Compactions == 0 {
			t.Fatal("no compactions: the big session alone holds over 1,000,000 characters")
		}
		cs, err := s.Compactions().Of(ctx, stats.BigSession)
		if err != nil || len(cs) == 0 {
			t.Fatalf("Compactions(big) = %d, %v", len(cs), err)
		}
		prev := int64(0)
		for _, c := range cs {
			if c.AfterSeq <= prev || c.AfterSeq >= 1000 || len(c.Summary) < 2000 || len(c.Summary) > 4000 {
				t.Errorf("compaction after_seq %d (previous %d), summary %d chars", c.AfterSeq, prev, len(c.Summary))
			}
			prev = c.AfterSeq
		}
		chars, err := s.Compactions().CharsSince(ctx, stats.BigSession)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := s.Events().Range(ctx, stats.BigSession, prev+1, 0)
		if err != nil {
			t.Fatal(err)
		}
		// What is left after the latest compaction is the kept prompts and
		// the turns after them: under the threshold plus a few turns.
		if chars <= 0 || chars > 2*store.CompactionThreshold || evs[0].Kind != codec.KindUserMessage {
			t.Errorf("after the latest compaction: %d chars, first event %s", chars, evs[0].Kind)
		}
	})

	t.Run("Needles", func(t *testing.T) {
		for _, n := range Needles {
			if n.Rate == 0 && stats.Needles[n.Text] != (NeedleCount{Events: 1, Messages: 1}) {
				t.Errorf("needle %q: %+v, want exactly one prompt", n.Text, stats.Needles[n.Text])
			}
		}
		// Stats' counts agree with what is stored.
		found := make(map[string]int)
		for id := range int64(20) {
			evs, err := s.Events().All(ctx, id+1)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				text := e.Event.Content + e.Event.Text
				for _, n := range Needles {
					if strings.Contains(text, n.Text) {
						found[n.Text]++
					}
				}
			}
		}
		for _, n := range Needles {
			if found[n.Text] != stats.Needles[n.Text].Events {
				t.Errorf("needle %q in %d stored events, Stats says %d", n.Text, found[n.Text], stats.Needles[n.Text].Events)
			}
		}
	})
}

// dumpHash is the SHA-256 of the store's canonical dump, without the
// created timestamps that SQLite sets when a row is inserted.
func dumpHash(t *testing.T, path string) string {
	t.Helper()
	d, err := mustOpen(t, path).Dump(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Sessions {
		d.Sessions[i].Created = ""
	}
	for i := range d.Compactions {
		d.Compactions[i].Created = ""
	}
	js, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:])
}

func TestDeterministic(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	opts := Options{Sessions: 12, Events: 2500, Big: 600, Seed: 7}
	a, statsA := mustCreate(t, opts)
	// Sessions are generated in parallel: the result must not depend on
	// how many run at once.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b, statsB := mustCreate(t, opts)
	if ha, hb := dumpHash(t, a), dumpHash(t, b); ha != hb {
		t.Errorf("same seed, different dumps: %s, %s", ha, hb)
	}
	if statsA.Bytes != statsB.Bytes || statsA.Compactions != statsB.Compactions {
		t.Errorf("same seed: %d bytes, %d compactions; then %d, %d", statsA.Bytes, statsA.Compactions, statsB.Bytes, statsB.Compactions)
	}
	opts.Seed = 8
	c, _ := mustCreate(t, opts)
	if dumpHash(t, a) == dumpHash(t, c) {
		t.Error("seeds 7 and 8 gave the same store")
	}
}

func TestCreateKeepsExistingFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions.azs")
	opts := Options{Sessions: 3, Events: 60, Big: 0, Seed: 1}

	t.Run("ErrExists", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Create(ctx, path, opts, false); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("Create over an existing file = %v, want an error", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "mine" {
			t.Errorf("existing file changed to %q", b)
		}
	})
	t.Run("Overwrite", func(t *testing.T) {
		st, err := Create(ctx, path, opts, true)
		if err != nil {
			t.Fatal(err)
		}
		if st.Events != 60 || st.Sessions != 3 {
			t.Errorf("Stats = %d sessions, %d events", st.Sessions, st.Events)
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		other := filepath.Join(dir, "other.azs")
		if _, err := Create(cancelled, other, smallOptions, false); !errors.Is(err, context.Canceled) {
			t.Errorf("Create with a cancelled context = %v", err)
		}
		for _, p := range []string{other, other + ".tmp"} {
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s exists after a cancelled Create (%v)", p, err)
			}
		}
	})
	t.Run("ErrOptions", func(t *testing.T) {
		bad := []Options{
			{Sessions: 0, Events: 10},
			{Sessions: 5, Events: 100, Big: 200},
			{Sessions: 3, Events: 10_000, Big: 1000}, // others would need 4,500 each, over half the big one
		}
		for _, o := range bad {
			if _, err := Create(ctx, filepath.Join(dir, "bad.azs"), o, false); err == nil {
				t.Errorf("Create(%+v) succeeded", o)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "bad.azs")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("bad options left a file (%v)", err)
		}
	})
}
