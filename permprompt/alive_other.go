//go:build !unix && !windows

package permprompt

import "os"

// processAlive answers true: without a liveness check here, no folder is
// provably stale, so none is removed.
func processAlive(int) bool { return true }

// ownedByMe answers false, for the same reason.
func ownedByMe(os.DirEntry) bool { return false }
