package store

import (
	"context"
	"path/filepath"

	"github.com/lazuli-app/lazuli/store/listcache"
)

// The counts Sessions().List reports are kept by listcache, between lists and
// in Lazuli's cache folder between runs (list/CacheKey(path).list). This
// file gives the cache what it needs of the store file.

// storeFile is the store file at its absolute path, as the list cache reads
// it.
type storeFile string

// Header reads the file's header in q's transaction (see headerPage).
func (f storeFile) Header(ctx context.Context, q listcache.Querier) ([100]byte, error) {
	var b [100]byte
	err := headerPage(ctx, q, &b)
	return b, err
}

// ID returns what the file system says about the file now.
func (f storeFile) ID() (fileID, bool) { return fileIDOf(string(f)) }

// listCacheFile returns the list cache file of the store at path, or ""
// when there is no cache folder (every first list then counts).
func listCacheFile(path string) string {
	dir, err := CacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "list", CacheKey(path)+".list")
}
