//go:build !unix

package indexdb

import "io/fs"

// fileID returns 0, 0: this system's FileInfo has no device or inode
// (size and modification time still tell a change).
func fileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
