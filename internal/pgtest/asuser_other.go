//go:build !unix

package pgtest

import "syscall"

// asUser starts the programs as Lazuli's own user: only Unix runs as
// root (os.Geteuid is -1 elsewhere), so it is never called.
func asUser(int, int) *syscall.SysProcAttr { return nil }
