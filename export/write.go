package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lazuli-app/lazuli/store"
)

// ErrExists is returned by WriteFile when the file exists and overwrite is
// false.
var ErrExists = errors.New("file exists")

// WriteFile writes a file atomically: write writes the content to a
// temporary file in path's folder, which is synced and then renamed to
// path. If write fails, or anything else does, the temporary file is
// removed and path is left as it was: there is never a half-written file.
//
// Without overwrite an existing path is not replaced (ErrExists; the
// check and the rename are one step where the file system can link). A new
// file gets mode 0644; a replaced one keeps its mode.
func WriteFile(path string, overwrite bool, write func(io.Writer) error) (err error) {
	// A folder, device node, FIFO or socket (or a link to one) is never
	// replaced by a file, with or without overwrite.
	if err := store.CheckRegular(path); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	mode := fs.FileMode(0o644)
	switch fi, err := os.Stat(path); {
	case err == nil && !overwrite:
		return fmt.Errorf("write %s: %w", path, ErrExists)
	case err == nil:
		mode = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()           // already failed; the close error adds nothing
			_ = os.Remove(tmp.Name()) // best effort: the temporary file is ours
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := place(tmp.Name(), path, overwrite); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// place moves the finished temporary file to path. Without overwrite it
// links it (which fails if path exists, atomically) and removes the
// temporary name; where links are not supported it checks, then renames.
func place(tmp, path string, overwrite bool) error {
	if overwrite {
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		_ = os.Remove(tmp) // path holds the content; a leftover name is only untidy
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("write %s: %w", path, ErrExists)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("write %s: %w", path, ErrExists)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir makes a rename in dir durable where the system allows it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync() // not supported everywhere; the file itself is synced
	_ = d.Close()
}
