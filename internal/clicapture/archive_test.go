package clicapture

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
)

// tarFiles writes the named files (relative to from) into the gzipped
// tar archive to: a SQLite database with its -wal and -shm stays one
// unit, and OpenCode's WAL (4 MB of rewritten pages) shrinks tenfold.
func tarFiles(from, to string, names ...string) error {
	f, err := os.Create(to)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression) // a valid level never fails
	tw := tar.NewWriter(zw)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(from, n))
		if err != nil {
			f.Close()
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(b))}); err != nil {
			f.Close()
			return err
		}
		if _, err := tw.Write(b); err != nil {
			f.Close()
			return err
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
