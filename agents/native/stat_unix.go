//go:build unix

package native

import (
	"io/fs"
	"os"
	"syscall"
)

// inodeOf is the file's inode number; 0 when the system does not say.
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // Ino is not uint64 everywhere
	}
	return 0
}

// openRegular opens the transcript at path for reading, only when it is a
// regular file: a symbolic link is not followed (O_NOFOLLOW), and a named
// pipe does not block the open (O_NONBLOCK) and is refused once open, so a
// file swapped for a pipe or a link since the scan never hangs a read.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: notRegular(fi.Mode())}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
