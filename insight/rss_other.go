//go:build !linux

package insight

// residentBytes returns 0: the memory a query adds is not watched here
// (see RunSQL), only the sizes SQLite's limits cap.
func residentBytes() int64 { return 0 }
