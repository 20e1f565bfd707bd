package agents

// This file lets Lazuli tell a last_claude_uuid left by one of its own
// killed runs from one AZUREAL or a live run owns. AZUREAL clears the
// column after a turn and, when it finds one set, recovers the turn from
// the CLI's own transcript (azs-format.md §3.4): that is right for an
// AZUREAL run, which stores the turn only at its end, but a Lazuli run
// stored its turn as it streamed, and a value it left (killed with SIGKILL)
// only says, wrongly, that an agent still works on the session.
//
// So while a run has set the column, it holds a run mark: a file in
// Lazuli's cache folder named after the store and session, holding the
// CLI session id and locked (flock; LockFileEx on Windows) until the run ends, when it is removed.
// The kernel drops the lock of a killed process; the file stays. The next
// run of the session clears the column only when the mark is there,
// unlocked and names the same id.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lazuli-app/lazuli/store"
)

// runMark is the mark of a run that set last_claude_uuid.
type runMark struct {
	f    *os.File
	path string
}

// runMarkPath is the mark file of a session of the store at storePath.
func runMarkPath(storePath string, session int64) (string, error) {
	dir, err := store.CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "runs", fmt.Sprintf("%s-S%d", store.CacheKey(storePath), session)), nil
}

// markRun records that this process set the session's last_claude_uuid to
// cliID. It returns nil when no mark could be made (no cache folder, or a
// live run holds the session's mark): the value is then left to AZUREAL's
// rules.
func markRun(storePath string, session int64, cliID string) *runMark {
	p, err := runMarkPath(storePath, session)
	if err != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	if tryLock(f) != nil {
		f.Close()
		return nil
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil
	}
	if _, err := f.WriteAt([]byte(cliID), 0); err != nil {
		f.Close()
		return nil
	}
	return &runMark{f: f, path: p}
}

// end ends the mark: removed when the run cleared the column, else only
// unlocked, so that the next run clears what this one left.
func (m *runMark) end(cleared bool) {
	if m == nil {
		return
	}
	removed := cleared && os.Remove(m.path) == nil
	m.f.Close()
	if cleared && !removed {
		// Windows removes no open file: once closed it goes, unless
		// another run opened it since (then it stays, as it must).
		_ = os.Remove(m.path)
	}
}

// clearStaleCLISession clears the last_claude_uuid of session s when a
// Lazuli run that was killed left it (see the top of this file).
func clearStaleCLISession(ctx context.Context, st *store.Store, s store.Session) error {
	if s.LastClaudeUUID == "" {
		return nil
	}
	p, err := runMarkPath(st.Path(), s.ID)
	if err != nil {
		return nil
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // not a Lazuli run's: AZUREAL recovers it
	}
	if err != nil {
		return nil
	}
	defer f.Close()
	if tryLock(f) != nil {
		return nil // a live run holds it
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil || string(b) != s.LastClaudeUUID {
		return nil // set by another program since
	}
	if err := st.Sessions().SetLastClaudeUUID(ctx, s.ID, ""); err != nil {
		return err
	}
	if os.Remove(p) != nil {
		f.Close() // Windows removes no open file (the deferred Close then does nothing)
		_ = os.Remove(p)
	}
	return nil
}
