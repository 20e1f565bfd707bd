//go:build !unix && !windows

package insight

import "os"

// lockFile has no lock to take where the system offers none: Updates of
// one index by several processes are not kept apart there.
func lockFile(*os.File, bool) error { return nil }
