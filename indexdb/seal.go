package indexdb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// sealSuffix names the seal file beside an index file (see Seal).
const sealSuffix = "-sealed"

// Seal records that the index file at path is as its last writer, a
// Lazuli process, left it: after that process closed every connection, so
// that the file holds everything (no -wal file is left). Sealed reports
// whether the file is still the one sealed, which lets an opener skip the
// checks that look for damage done from outside (another program, a disk
// error, a copy cut short): those change the file's size, modification
// time or identity. Seal does nothing when a -wal file remains (another
// process has the file open: its close seals it) or when the seal already
// says the same; it writes the seal to a temporary file renamed over the
// old one, so a reader never sees half of it.
func Seal(path string) error {
	if _, err := os.Lstat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return err // nil when it exists: not sealed
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	seal := sealOf(fi)
	if old, err := os.ReadFile(path + sealSuffix); err == nil && bytes.Equal(old, seal) {
		if sf, err := os.Stat(path + sealSuffix); err == nil && !racy(fi, sf) {
			return nil
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".seal-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(seal)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name()) // the write error is the one to report
		return err
	}
	if err := os.Rename(tmp.Name(), path+sealSuffix); err != nil {
		_ = os.Remove(tmp.Name()) // the rename error is the one to report
		return err
	}
	return nil
}

// Sealed reports whether the index file at path is the one its seal
// describes (Seal), with no -wal file beside it. A seal written within the
// same tick of the file system's clock as the file's last change proves
// nothing (a change right after the seal would keep the recorded time), so
// it is not trusted: the opener checks the file, and its close seals it
// again, later than the change.
func Sealed(path string) bool {
	if _, err := os.Lstat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	seal, err := os.ReadFile(path + sealSuffix)
	if err != nil || !bytes.Equal(seal, sealOf(fi)) {
		return false
	}
	sf, err := os.Stat(path + sealSuffix)
	return err == nil && !racy(fi, sf)
}

// racy reports whether the seal file sf was written in the same tick of
// the file system's clock as the file's last change fi (or before it): a
// change made after the seal within that tick would keep the time the
// seal recorded. Once the clock has moved on, any later change gets a
// later time. A file system that keeps whole seconds makes every seal
// written in the same second racy.
func racy(fi, sf fs.FileInfo) bool {
	return !sf.ModTime().After(fi.ModTime())
}

// sealOf is what a seal records of the file: size, modification time in
// nanoseconds, and device and inode where the system has them.
func sealOf(fi fs.FileInfo) []byte {
	dev, ino := fileID(fi)
	return fmt.Appendf(nil, "lazuli index seal 1\nsize %d\nmtime %d\ndev %d\nino %d\n", fi.Size(), fi.ModTime().UnixNano(), dev, ino)
}
