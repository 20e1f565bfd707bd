package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
)

// CacheDirEnv names the environment variable that overrides where Lazuli keeps
// its caches. Each package owns a subfolder and the names in it: the store its
// list aggregates (list/), search its index (index/, see search.IndexPath).
// Nothing in the cache is needed for correctness: deleting the folder only
// costs a rebuild.
const CacheDirEnv = "LAZULI_CACHE_DIR"

// CacheDir returns Lazuli's cache folder: $LAZULI_CACHE_DIR, or "lazuli" in
// the user cache folder (os.UserCacheDir). It does not create the folder.
func CacheDir() (string, error) {
	if d := os.Getenv(CacheDirEnv); d != "" {
		return filepath.Abs(d)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", errors.New("no cache folder: " + err.Error())
	}
	return filepath.Join(base, "lazuli"), nil
}

// CacheKey names a store's entries in the cache: 16 hex digits of the SHA-256
// of its absolute path, with symlinks resolved when the path exists. Two
// paths to one file share a key; a store moved elsewhere gets a new one.
// The cache entries themselves are validated against the file's content, so a
// different file at the same path is detected, not trusted.
func CacheKey(path string) string {
	p, err := filepath.Abs(path)
	if err != nil {
		p = filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(dir, filepath.Base(p))
	}
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:8])
}
