//go:build unix

package store

import (
	"os"
	"syscall"
)

// fileIDOf returns what the file system says about the file at path: its
// device and inode, size and modification time; ok is false when it cannot
// be read.
func fileIDOf(path string) (id fileID, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	id = fileID{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.Dev, id.Ino = uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // their types differ by platform
	}
	return id, true
}
