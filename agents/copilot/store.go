package copilot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// StoreSession is one session of Copilot CLI's session store
// (~/.copilot/session-store.db): what the store keeps beside the event
// logs, the summary and repository, the turns (a prompt and its answer),
// the files the session touched and the refs it mentioned.
type StoreSession struct {
	ID, Cwd, Repository, Branch, Summary string
	Created, Updated                     time.Time
	Turns                                []StoreTurn
	Files                                []StoreFile
	Refs                                 []StoreRef
}

// StoreTurn is a prompt and its answer.
type StoreTurn struct {
	Index     int
	User      string
	Assistant string
	At        time.Time
}

// StoreFile is a file a session's tool touched.
type StoreFile struct {
	Path, Tool string
	Turn       int
}

// StoreRef is a ref a session mentioned (a PR, an issue, a commit).
type StoreRef struct {
	Type, Value string
	Turn        int
}

// ReadStore reads every session of the session store at path. The
// database and its -wal are copied to a temporary folder and the copy is
// read (mode=ro, query_only): even a read-only SQLite reader rewrites the
// -shm index beside a WAL database, and the user's files must stay
// byte-identical. It fails on a file that is not Copilot's session store.
func ReadStore(ctx context.Context, path string) ([]StoreSession, error) {
	tmp, err := os.MkdirTemp("", "lazuli-copilot-store-")
	if err != nil {
		return nil, fmt.Errorf("copy copilot session store %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	cp := filepath.Join(tmp, "session-store.db")
	if err := copyFile(path, cp); err != nil {
		return nil, fmt.Errorf("copy copilot session store %s: %w", path, err)
	}
	if err := copyFile(path+"-wal", cp+"-wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("copy copilot session store %s: %w", path, err)
	}
	return readStore(ctx, path, cp)
}

// copyFile copies the file at src to dst (created, 0600).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// readStore reads the store copied to cp; path names it in errors.
func readStore(ctx context.Context, path, cp string) ([]StoreSession, error) {
	q := url.Values{"mode": {"ro"}, "_pragma": {"query_only(1)", "busy_timeout(5000)"}}
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: cp, RawQuery: q.Encode()}).String())
	if err != nil {
		return nil, fmt.Errorf("open copilot session store %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	byID := map[string]*StoreSession{}
	var out []*StoreSession
	err = query(ctx, db, `SELECT id, COALESCE(cwd,''), COALESCE(repository,''), COALESCE(branch,''), COALESCE(summary,''),
COALESCE(created_at,''), COALESCE(updated_at,'') FROM sessions ORDER BY created_at, id`, func(rows *sql.Rows) error {
		var s StoreSession
		var created, updated string
		if err := rows.Scan(&s.ID, &s.Cwd, &s.Repository, &s.Branch, &s.Summary, &created, &updated); err != nil {
			return err
		}
		s.Created, s.Updated = storeTime(created), storeTime(updated)
		byID[s.ID] = &s
		out = append(out, &s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read copilot session store %s: %w", path, err)
	}
	err = query(ctx, db, `SELECT session_id, turn_index, COALESCE(user_message,''), COALESCE(assistant_response,''), COALESCE(timestamp,'')
FROM turns ORDER BY session_id, turn_index`, func(rows *sql.Rows) error {
		var id, at string
		var t StoreTurn
		if err := rows.Scan(&id, &t.Index, &t.User, &t.Assistant, &at); err != nil {
			return err
		}
		t.At = storeTime(at)
		if s := byID[id]; s != nil {
			s.Turns = append(s.Turns, t)
		}
		return nil
	})
	if err == nil {
		err = query(ctx, db, `SELECT session_id, file_path, COALESCE(tool_name,''), COALESCE(turn_index,0) FROM session_files ORDER BY id`, func(rows *sql.Rows) error {
			var id string
			var f StoreFile
			if err := rows.Scan(&id, &f.Path, &f.Tool, &f.Turn); err != nil {
				return err
			}
			if s := byID[id]; s != nil {
				s.Files = append(s.Files, f)
			}
			return nil
		})
	}
	if err == nil {
		err = query(ctx, db, `SELECT session_id, ref_type, ref_value, COALESCE(turn_index,0) FROM session_refs ORDER BY id`, func(rows *sql.Rows) error {
			var id string
			var r StoreRef
			if err := rows.Scan(&id, &r.Type, &r.Value, &r.Turn); err != nil {
				return err
			}
			if s := byID[id]; s != nil {
				s.Refs = append(s.Refs, r)
			}
			return nil
		})
	}
	if err != nil {
		return nil, fmt.Errorf("read copilot session store %s: %w", path, err)
	}
	res := make([]StoreSession, len(out))
	for i, s := range out {
		res[i] = *s
	}
	return res, nil
}

// query runs q and calls fn for each row.
func query(ctx context.Context, db *sql.DB, q string, fn func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// storeTime reads the store's times (RFC 3339, or SQLite's datetime()).
func storeTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// Events are a stored session as AZUREAL's events, for a session whose
// event log is gone: the Init with its folder, then each turn's prompt,
// answer and a Complete (a turn without an answer ends failed). Tool
// calls, thinking and usage are not in the store.
func (s StoreSession) Events() []codec.Event {
	out := []codec.Event{codec.Init(s.Cwd, "")}
	for _, t := range s.Turns {
		if strings.TrimSpace(t.User) != "" {
			out = append(out, codec.UserMessage(t.User))
		}
		if strings.TrimSpace(t.Assistant) != "" {
			out = append(out, codec.AssistantText(t.Assistant))
		}
		out = append(out, codec.Complete(strings.TrimSpace(t.Assistant) != "", 0, 0))
	}
	return out
}
