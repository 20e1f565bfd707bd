//go:build unix

package pgtest

import "syscall"

// asUser is what starts a program as user uid, group gid.
func asUser(uid, gid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
}
