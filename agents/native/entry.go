package native

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "not a regular file"
	}
}

// notRegular is the error of opening something that is not a regular file.
func notRegular(m fs.FileMode) error {
	return errors.New("not a regular file: " + kindOf(m))
}

// irregularReason says why an entry named like a transcript (*.jsonl) but
// not a regular file is skipped. It looks at a link's target with a stat,
// which never opens it: a named pipe or a device is never read.
func irregularReason(path string, m fs.FileMode) string {
	if m&fs.ModeSymlink == 0 {
		return "not a regular file: " + kindOf(m)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "a symbolic link that loops; links are not followed"
	case errors.Is(err, fs.ErrNotExist):
		return "a broken symbolic link (its target does not exist)"
	case err != nil:
		return "a symbolic link whose target cannot be read: " + errReason(err)
	case fi.Mode().IsRegular():
		return "a symbolic link to a file; links are not followed"
	default:
		return "a symbolic link to " + kindOf(fi.Mode()) + "; links are not followed"
	}
}
