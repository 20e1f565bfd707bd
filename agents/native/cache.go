package native

// This file keeps the previews of native transcripts between scans, so that
// a scan of an unchanged history reads no transcript: a file whose size,
// modification time and inode are those of its cached preview is not
// opened. The cache is one gob file (Options.PreviewCache), written
// whole through a temporary file and a rename; a missing, damaged or
// foreign one is rebuilt, so it can never cost more than a full scan.

import (
	"bytes"
	"encoding/gob"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lazuli-app/lazuli/store"
)

// previewCacheVersion changes when the cache's layout does. The previews
// themselves are tied to the executable that made them (its size and
// modification time), so a Lazuli built with another preview code starts
// afresh.
const previewCacheVersion = 1

// previewCacheFile is the cache as written.
type previewCacheFile struct {
	Version    int
	Executable store.FileStat
	Entries    map[string]cachedPreview
}

// cachedPreview is one file's preview and the stat it was taken at.
type cachedPreview struct {
	Stat    store.FileStat
	Session Session // without Subagents
	Project string  // Session.project
}

// previewCache is a scan's view of the cache.
type previewCache struct {
	path    string
	exe     store.FileStat
	old     map[string]cachedPreview
	next    map[string]cachedPreview
	changed bool
}

// loadPreviewCache reads the cache at path; "" gives a cache that keeps
// nothing.
func loadPreviewCache(path string) *previewCache {
	c := &previewCache{path: path, old: map[string]cachedPreview{}, next: map[string]cachedPreview{}}
	if path == "" {
		return c
	}
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			c.exe = store.FileStat{Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Inode: inodeOf(fi)}
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var f previewCacheFile
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&f) != nil || f.Version != previewCacheVersion || f.Executable != c.exe {
		c.changed = true // rewritten afresh
		return c
	}
	if f.Entries != nil {
		c.old = f.Entries
	}
	return c
}

// key names a file of agent under root in the cache.
func previewKey(agent, root, path string) string { return agent + "\x00" + root + "\x00" + path }

// cached returns the cached preview of the file at path when its stat
// (d's) is the cached one, and keeps it for the next scan.
func (c *previewCache) cached(agent, root, path string, d fs.DirEntry) (Session, bool) {
	if c.path == "" {
		return Session{}, false
	}
	key := previewKey(agent, root, path)
	fi, err := d.Info()
	if err != nil {
		return Session{}, false
	}
	st := store.FileStat{Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Inode: inodeOf(fi)}
	e, ok := c.old[key]
	if !ok || e.Stat != st {
		return Session{}, false
	}
	c.next[key] = e
	n := e.Session
	n.project = e.Project
	return n, true
}

// add keeps n, the preview just read of the file at path, for the next
// scan.
func (c *previewCache) add(agent, root, path string, n Session) {
	c.next[previewKey(agent, root, path)] = cachedPreview{Stat: n.stat(), Session: n, Project: n.project}
	c.changed = true
}

// save writes the previews of this scan, and those of roots it did not
// scan, when anything changed. Failing to write costs the next scan time,
// nothing else, so errors are dropped.
func (c *previewCache) save(scanned []string) {
	if c.path == "" {
		return
	}
	for k, e := range c.old {
		if _, ok := c.next[k]; ok {
			continue
		}
		if rootScanned(k, scanned) {
			c.changed = true // a file gone since
			continue
		}
		c.next[k] = e
	}
	if !c.changed {
		return
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(previewCacheFile{Version: previewCacheVersion, Executable: c.exe, Entries: c.next}) != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.path), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".previews-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.path) != nil {
		os.Remove(tmp.Name()) //nolint:errcheck // best effort: a cache
	}
}

// rootScanned reports whether the cache key k is of a file under one of
// the scanned agent/root pairs (given as previewKey(agent, root, "")).
func rootScanned(k string, scanned []string) bool {
	for _, s := range scanned {
		if strings.HasPrefix(k, s) {
			return true
		}
	}
	return false
}

// DefaultPreviewCache is where Lazuli keeps the previews of native
// transcripts: native/previews.gob in store.CacheDir; "" when there is no
// cache folder.
func DefaultPreviewCache() string {
	dir, err := store.CacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "native", "previews.gob")
}
