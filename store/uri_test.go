package store

import (
	"net/url"
	"testing"
)

// TestFileURI: a path becomes an SQLite URI whose path holds it all, a
// Windows drive or share included (tested here on the forward-slash form
// filepath.ToSlash gives on Windows; the Windows build runs under Wine in
// internal/winetest).
func TestFileURI(t *testing.T) {
	q := url.Values{"mode": {"ro"}}
	for _, tt := range []struct{ path, want string }{
		{"/home/me/.azureal/sessions.azs", "file:///home/me/.azureal/sessions.azs?mode=ro"},
		{"/tmp/a b/#1?.azs", "file:///tmp/a%20b/%231%3F.azs?mode=ro"},
		{"C:/Users/me/s.azs", "file:///C:/Users/me/s.azs?mode=ro"},
		{"Z:/tmp/x.azs", "file:///Z:/tmp/x.azs?mode=ro"},
		{"//host/share/s.azs", "file:////host/share/s.azs?mode=ro"},
	} {
		if got := fileURI(tt.path, q); got != tt.want {
			t.Errorf("fileURI(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}
