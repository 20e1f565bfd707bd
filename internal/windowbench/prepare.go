package windowbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/lazuli-app/lazuli/store"
)

// Prepared is a copy of a store made ready for the benchmark.
type Prepared struct {
	Project  string // the worktree holding the copy
	CacheDir string // its search index, built
	Small    string // the name given to the session of about 400 events; "" for none
	Big      string // the name given to the biggest session
	BigCount int64  // its events
	Sessions int    // the sessions of the store
}

// Prepare copies the store at src into work (once: a copy of the same
// file is kept), names the sessions the benchmark switches between
// "bench-S<id>" (in the copy) and builds the copy's search index with the
// headless binary. The store at src is only read.
func Prepare(ctx context.Context, src, work, headless string, log io.Writer) (Prepared, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return Prepared{}, err
	}
	p := Prepared{Project: filepath.Join(work, "project"), CacheDir: filepath.Join(work, "cache")}
	dst := filepath.Join(p.Project, ".azureal", "sessions.azs")
	stamp := filepath.Join(work, "prepared")
	want := src + " " + strconv.FormatInt(fi.Size(), 10) + " " + fi.ModTime().UTC().String()
	if have, err := os.ReadFile(stamp); err != nil || string(have) != want {
		fmt.Fprintf(log, "windowbench: copying %s\n", src)
		if err := os.RemoveAll(work); err != nil {
			return Prepared{}, err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return Prepared{}, err
		}
		if err := copyFile(src, dst); err != nil {
			return Prepared{}, err
		}
		if err := nameSessions(ctx, dst); err != nil {
			return Prepared{}, err
		}
		fmt.Fprintf(log, "windowbench: building the search index\n")
		cmd := exec.CommandContext(ctx, headless, "reindex", "--project", p.Project)
		cmd.Env = append(os.Environ(), "LAZULI_CACHE_DIR="+p.CacheDir)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return Prepared{}, fmt.Errorf("reindex the copy: %w", err)
		}
		if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
			return Prepared{}, err
		}
	}
	st, err := store.Open(ctx, dst)
	if err != nil {
		return Prepared{}, err
	}
	defer st.Close()
	list, err := st.Sessions().List(ctx, "")
	if err != nil {
		return Prepared{}, err
	}
	p.Sessions = len(list)
	for _, s := range list {
		switch s.Name {
		case benchName(s.ID):
			if p.Big == "" || s.EventCount > p.BigCount {
				if p.Big != "" {
					p.Small = p.Big
				}
				p.Big, p.BigCount = s.Name, s.EventCount
			} else {
				p.Small = s.Name
			}
		}
	}
	return p, nil
}

func benchName(id int64) string { return "bench-S" + strconv.FormatInt(id, 10) }

// nameSessions renames, in the copy at path, the session nearest to 400
// events and the biggest session.
func nameSessions(ctx context.Context, path string) error {
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := st.Sessions().List(ctx, "")
	if err != nil {
		return err
	}
	var small, big *store.Session
	for i := range list {
		s := &list[i]
		if small == nil || abs(s.EventCount-400) < abs(small.EventCount-400) {
			small = s
		}
		if big == nil || s.EventCount > big.EventCount || (big == small && s != small) {
			big = s
		}
	}
	if small == nil {
		return fmt.Errorf("%s has no sessions", path)
	}
	if err := st.Sessions().Rename(ctx, small.ID, benchName(small.ID)); err != nil {
		return err
	}
	if big.ID == small.ID {
		return nil
	}
	return st.Sessions().Rename(ctx, big.ID, benchName(big.ID))
}

func abs(n int64) int64 { return max(n, -n) }

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
