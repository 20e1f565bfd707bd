package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular reports a path the user named that is not a regular file:
// a named pipe, a device, a socket or a folder. Reading a FIFO blocks
// until something writes to it, and writing over a device node would
// replace it, so Lazuli reads and replaces regular files only.
var ErrNotRegular = errors.New("not a regular file")

// CheckRegular returns an error wrapping ErrNotRegular when path, after
// symbolic links, names something other than a regular file. A missing
// path is not an error (it may be created); any other error from stat is
// returned.
func CheckRegular(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	return checkMode(path, fi)
}

// checkMode is CheckRegular for a file already looked at.
func checkMode(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s: %w", path, fileKind(fi.Mode()), ErrNotRegular)
}

// fileKind names what a mode that is not a regular file's describes.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}
