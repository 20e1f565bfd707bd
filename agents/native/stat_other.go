//go:build !unix

package native

import (
	"io/fs"
	"os"
)

// inodeOf is 0 where the system has no inode numbers: an unchanged file is
// then known by its size and modification time.
func inodeOf(fs.FileInfo) uint64 { return 0 }

// openRegular opens the transcript at path for reading, only when it is a
// regular file (checked before and after the open; a symbolic link is not
// followed).
func openRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: notRegular(fi.Mode())}
	}
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: notRegular(fi.Mode())}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
