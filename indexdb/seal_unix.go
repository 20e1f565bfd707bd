//go:build unix

package indexdb

import (
	"io/fs"
	"syscall"
)

// fileID returns the device and inode of the file fi describes.
func fileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // their types differ between systems
	}
	return 0, 0
}
