package winetest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// env is what the tests share: one Wine prefix and the binaries.
type env struct {
	src    string // the module's root
	wine   *Wine
	binDir string // lazuli.exe and lazuli-window.exe (BinEnv)
	tmp    string
	took   time.Duration // making the prefix
}

var (
	shared   env
	setupErr error
	once     sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.wine != nil {
		_ = shared.wine.Close() // ends what a failed test left running
	}
	if shared.tmp != "" {
		_ = os.RemoveAll(shared.tmp) // a temp folder; nothing to report
	}
	os.Exit(code)
}

// setup returns the shared prefix, made on first use; it ends tb when wine
// is missing (a skip, or a failure under CI).
func setup(tb testing.TB) *env {
	tb.Helper()
	if testing.Short() {
		tb.Skip("starts Wine")
	}
	if os.Getenv(BinEnv) == "" {
		tb.Skipf("%s is not set: make wine-test builds the Windows binaries and runs these tests", BinEnv)
	}
	fixtures.NeedTool(tb, "wine")
	fixtures.NeedTool(tb, "wineserver")
	fixtures.NeedTool(tb, MinGW)
	first := false
	once.Do(func() { first, setupErr = true, shared.init() })
	if setupErr != nil {
		tb.Fatal(setupErr)
	}
	if first {
		tb.Logf("Wine prefix %s made in %.1f s", shared.wine.Prefix, shared.took.Seconds())
	}
	return &shared
}

func (e *env) init() error {
	src, err := ModuleRoot()
	if err != nil {
		return err
	}
	e.src = src
	if e.tmp, err = os.MkdirTemp("", "lazuli-wine-"); err != nil {
		return err
	}
	e.binDir = os.Getenv(BinEnv)
	home := filepath.Join(e.tmp, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		return err
	}
	start := time.Now()
	e.wine, err = NewPrefix(context.Background(), src, home)
	e.took = time.Since(start)
	return err
}

// binary returns the path of lazuli.exe or, with window, lazuli-window.exe
// in BinEnv's folder.
func (e *env) binary(tb testing.TB, window bool) string {
	tb.Helper()
	name := "lazuli.exe"
	if window {
		name = "lazuli-window.exe"
	}
	p := filepath.Join(e.binDir, name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("%s has no %s (make windows builds it): %v", e.binDir, name, err)
	}
	return p
}
