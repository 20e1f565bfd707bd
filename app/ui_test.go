package app

import (
	"bytes"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

// serialUI is onUI for the tests: one hand-off at a time, as the running
// app's single Fyne goroutine does (Fyne's test driver runs each at once
// on the goroutine that hands off, and its text shaper must not run on two
// at once). A hand-off may hand off again from within. One that waited
// long for another (which may itself wait on it) runs anyway, as the test
// driver alone would: a test never hangs on this lock.
func serialUI(f func()) {
	id := goroutineID()
	if uiOwner.Load() == id {
		f()
		return
	}
	select {
	case uiSem <- struct{}{}:
		uiOwner.Store(id)
		defer func() {
			uiOwner.Store(0)
			<-uiSem
		}()
	case <-time.After(5 * time.Second):
	}
	f()
}

var (
	uiSem   = make(chan struct{}, 1)
	uiOwner atomic.Uint64
)

// goroutineID is the running goroutine's number, from its stack's header
// ("goroutine 12 [running]:").
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
