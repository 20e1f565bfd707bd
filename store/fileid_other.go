//go:build !unix

package store

import "os"

// fileIDOf returns what the file system says about the file at path: its
// size and modification time (no inode here); ok is false when it cannot
// be read.
func fileIDOf(path string) (id fileID, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	return fileID{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, true
}
