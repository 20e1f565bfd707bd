//go:build linux

package insight

import (
	"bytes"
	"os"
	"strconv"
)

// residentBytes returns the memory this process has resident (its RSS),
// from /proc/self/statm; 0 when it cannot be read.
func residentBytes() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := bytes.Fields(data)
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
