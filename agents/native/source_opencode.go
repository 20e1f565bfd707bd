package native

// OpenCode keeps its history in one SQLite database, not in a file per
// session: the scan mirrors each session as a file of the lines
// opencode.DB.Lines gives (its settled messages only, so a mirror only
// grows while OpenCode works) in Lazuli's cache, and the importer reads
// those files as it reads every agent's transcripts.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lazuli-app/lazuli/agents/opencode"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
)

// OpenCode is OpenCode's history, as recorded in the store.
const OpenCode = "opencode"

func init() {
	addSource(&Source{Agent: OpenCode, Title: "OpenCode", Order: 4, Flag: "opencode-dir",
		EnvVar: "XDG_DATA_HOME", HomeDir: filepath.Join(".local", "share"), HistoryDir: "opencode",
		Format: opencode.Format,
		preview: func(n *Session, _ string) previewer {
			return &eventsPreview{n: n, format: opencode.Format, p: opencode.NewParser(parse.Options{}), id: openCodeID,
				parent: openCodeParent, started: openCodeStarted}
		},
		feeder:  func(opts parse.Options) nativeFeeder { return &eventsFeeder{p: openCodeFeed{opencode.NewParser(opts)}} },
		prepare: mirrorOpenCode,
	})
}

// openCodeID is the session line's id.
func openCodeID(o parse.Object, path string) string {
	if o == nil {
		return filepath.Base(path[:len(path)-len(filepath.Ext(path))])
	}
	if o.Str("type") == opencode.LineSession {
		return o.Str("id")
	}
	return ""
}

// openCodeParent is the session line's parentID: the session whose task
// tool started this one, a sub-agent's.
func openCodeParent(o parse.Object) string {
	if o.Str("type") == opencode.LineSession {
		return o.Str("parentID")
	}
	return ""
}

// openCodeStarted is the session line's time.created (Unix ms): a mirror
// file's own time is when Lazuli wrote it, not when the session began.
func openCodeStarted(o parse.Object) time.Time {
	if o.Str("type") != opencode.LineSession {
		return time.Time{}
	}
	if ms, ok := o.Obj("time").Integer("created"); ok && ms > 0 {
		return time.UnixMilli(ms).UTC()
	}
	return time.Time{}
}

// openCodeFeed is the OpenCode parser as a streamParser: it releases
// nothing at Finish.
type openCodeFeed struct{ *opencode.Parser }

func (openCodeFeed) Unreleased() int { return 0 }

// mirrorIndex is what a mirror folder remembers of each session: its
// time_updated when its file was last written.
type mirrorIndex map[string]int64

// mirrorOpenCode mirrors dir/opencode.db into Lazuli's cache and returns
// the mirror's folder. The database is opened read-only; a session whose
// time_updated is the one last mirrored is not read again.
func mirrorOpenCode(ctx context.Context, dir string) (string, error) {
	dbPath := filepath.Join(dir, "opencode.db")
	if _, err := os.Stat(dbPath); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errors.New("no opencode.db in it")
		}
		return "", fmt.Errorf("cannot read it: %s", errReason(err))
	}
	cache, err := store.CacheDir()
	if err != nil {
		return "", err
	}
	out := filepath.Join(cache, "native", "opencode", store.CacheKey(dbPath))
	if err := os.MkdirAll(out, 0o700); err != nil {
		return "", fmt.Errorf("make the mirror folder: %w", err)
	}
	db, err := opencode.OpenDB(ctx, dbPath)
	if err != nil {
		return "", err
	}
	defer db.Close()
	sessions, err := db.Sessions(ctx)
	if err != nil {
		return "", err
	}
	indexPath := filepath.Join(out, "index.json")
	idx := mirrorIndex{}
	if b, err := os.ReadFile(indexPath); err == nil {
		_ = json.Unmarshal(b, &idx) // a damaged index only costs a full mirror
	}
	var todo []opencode.Session
	for _, s := range sessions {
		if idx[s.ID] != s.Updated {
			todo = append(todo, s)
			continue
		}
		// Mirrored already: dated as written (a mirror an older Lazuli
		// wrote bears the time of its import).
		if err := dateMirror(filepath.Join(out, s.ID+".jsonl"), time.UnixMilli(s.Updated)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	if err := mirrorSessions(ctx, db, out, todo); err != nil {
		return "", err
	}
	for _, s := range todo {
		idx[s.ID] = s.Updated
	}
	b, _ := json.Marshal(idx) // a map of strings to ints always marshals
	if err := os.WriteFile(indexPath, b, 0o600); err != nil {
		return "", fmt.Errorf("write the mirror index: %w", err)
	}
	return out, nil
}

// mirrorSessions writes the mirror of each session in todo to out, one
// per core at a time (DB.Lines of a session is mostly its rows' JSON,
// read on one core), and returns the first error, after which no other
// session is started.
func mirrorSessions(ctx context.Context, db *opencode.DB, out string, todo []opencode.Session) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, s := range todo {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			lines, err := db.Lines(gctx, s)
			if err != nil {
				return err
			}
			return writeMirror(filepath.Join(out, s.ID+".jsonl"), settled(lines), time.UnixMilli(s.Updated))
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// settled returns the session line and the messages up to the first that
// OpenCode is still writing (an assistant message without its completed
// time or error), so that a mirror only ever grows.
func settled(lines [][]byte) [][]byte {
	for i, l := range lines {
		o, ok := parse.DecodeObject(l)
		if !ok || o.Str("type") != opencode.LineMessage {
			continue
		}
		info := o.Obj("info")
		if info.Str("role") != "assistant" || info.Has("error") {
			continue
		}
		if _, done := info.Obj("time").Integer("completed"); !done {
			return lines[:i]
		}
	}
	return lines
}

// writeMirror writes lines to path, unless it holds them already, and
// dates the file mod, the session's last change in the agent's own
// database (zero leaves the time of the write): the file stands for the
// session, and a session's last activity counts its native file's time.
// Since only settled messages are mirrored, a new write usually extends
// the file's content; when OpenCode changed a settled message (a revert),
// the importer finds the file changed.
func writeMirror(path string, lines [][]byte, mod time.Time) error {
	var want bytes.Buffer
	for _, l := range lines {
		want.Write(l)
		want.WriteByte('\n')
	}
	if have, err := os.ReadFile(path); err != nil || !bytes.Equal(have, want.Bytes()) {
		if err := os.WriteFile(path, want.Bytes(), 0o600); err != nil {
			return fmt.Errorf("write the mirror %s: %w", path, err)
		}
	}
	return dateMirror(path, mod)
}

// dateMirror gives the mirror at path the time mod, unless it has it or
// mod is zero.
func dateMirror(path string, mod time.Time) error {
	if mod.IsZero() {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.ModTime().Equal(mod) {
		return nil
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		return fmt.Errorf("date the mirror %s: %w", path, err)
	}
	return nil
}
