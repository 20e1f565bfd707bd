//go:build !unix

package cli

import "os"

// peakRSS is not known here.
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }
