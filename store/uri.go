package store

import (
	"net/url"
	"path/filepath"
	"strings"
)

// FileURI is the SQLite URI ("file:" + path + "?" + query) of the
// database file at path. The path is written with forward slashes and
// starts with one, so a Windows path keeps its drive in the path
// (file:///C:/Users/me/s.azs, which SQLite's Windows VFS opens) instead of
// becoming the URI's authority, which SQLite refuses ("invalid uri
// authority"); a UNC path \\host\share\x becomes file:////host/share/x.
func FileURI(path string, query url.Values) string {
	return fileURI(filepath.ToSlash(path), query)
}

// fileURI is FileURI on a path already written with forward slashes.
func fileURI(slashed string, query url.Values) string {
	if !strings.HasPrefix(slashed, "/") {
		slashed = "/" + slashed
	}
	return (&url.URL{Scheme: "file", Path: slashed, RawQuery: query.Encode()}).String()
}
