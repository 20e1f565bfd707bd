//go:build unix

package native

import (
	"io/fs"
	"syscall"
)

// inodeOf is the file's inode number; 0 when the system does not say.
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // Ino is not uint64 everywhere
	}
	return 0
}
