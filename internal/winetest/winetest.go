// Package winetest runs Lazuli's Windows binaries under Wine on Linux
// (issue 33): the headless lazuli.exe on the shared fixtures, with Windows
// paths (drive letters, backslashes), and lazuli-window.exe on Xvfb. Its
// tests run on the binaries `make windows` built, which `make wine-test`
// names in LAZULI_WINDOWS_BIN; without it they skip with one line, and
// where wine is not installed too, but that fails under CI
// (internal/fixtures.NeedTool).
//
// Wine's first start makes a prefix (its C: drive and registry, about 20
// seconds): one per test process, in a temporary HOME, shared by the tests.
// Debian 12's Wine 8 lacks bcryptprimitives.dll, which every Go 1.22+
// program loads at start-up; the prefix gets a small stand-in built from
// scripts/wine/bcryptprimitives.c with mingw-w64 (Wine 9 has its own).
package winetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BinEnv names a folder holding lazuli.exe and lazuli-window.exe (make
// windows's out/windows); unset, the tests skip.
const BinEnv = "LAZULI_WINDOWS_BIN"

// MinGW is the C compiler for windows/amd64 (Debian's gcc-mingw-w64-x86-64).
const MinGW = "x86_64-w64-mingw32-gcc"

// Wine is a Wine prefix to run Windows programs in.
type Wine struct {
	Prefix string   // WINEPREFIX
	env    []string // the environment of every program run in it
}

// WinPath is path as a Windows program under Wine names it: on drive Z:,
// which Wine maps to /, with backslashes (/tmp/x becomes Z:\tmp\x).
func WinPath(path string) string {
	return `Z:` + strings.ReplaceAll(filepath.Clean(path), "/", `\`)
}

// NewPrefix makes a Wine prefix under home and puts the bcryptprimitives
// stand-in into its system32. src is the module's root.
func NewPrefix(ctx context.Context, src, home string) (*Wine, error) {
	w := &Wine{Prefix: filepath.Join(home, "wine")}
	w.env = append(os.Environ(),
		"HOME="+home, "WINEPREFIX="+w.Prefix, "WINEARCH=win64",
		"WINEDEBUG=-all",                   // Wine's own messages would bury the program's
		"WINEDLLOVERRIDES=mscoree,mshtml=", // no prompt to install Wine Mono or Gecko
	)
	w.env = withoutVar(w.env, "DISPLAY") // wineboot shows no window
	boot := exec.CommandContext(ctx, "wineboot", "--init")
	boot.Env = w.env
	if out, err := boot.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("wineboot --init: %w: %s", err, lastLines(out, 5))
	}
	if err := w.waitServer(ctx); err != nil {
		return nil, err
	}
	sys32 := filepath.Join(w.Prefix, "drive_c", "windows", "system32")
	if _, err := os.Stat(filepath.Join(sys32, "bcryptprimitives.dll")); errors.Is(err, os.ErrNotExist) {
		cc := exec.CommandContext(ctx, MinGW, "-shared", "-O2", "-s", "-o", filepath.Join(sys32, "bcryptprimitives.dll"),
			filepath.Join(src, "scripts", "wine", "bcryptprimitives.c"), "-ladvapi32")
		if out, err := cc.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build bcryptprimitives.dll: %w: %s", err, lastLines(out, 5))
		}
	}
	return w, nil
}

// waitServer waits until the prefix's wineserver has ended (wineboot
// leaves it running a few seconds).
func (w *Wine) waitServer(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, "wineserver", "--wait")
	cmd.Env = w.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("wineserver --wait: %w: %s", err, lastLines(out, 5))
	}
	return nil
}

// Close ends every program still running in the prefix.
func (w *Wine) Close() error {
	cmd := exec.Command("wineserver", "--kill")
	cmd.Env = w.env
	return cmd.Run()
}

// Command is a Windows program run by wine in the prefix, with extra
// environment variables (KEY=VALUE).
func (w *Wine) Command(ctx context.Context, exe string, args []string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "wine", append([]string{exe}, args...)...)
	cmd.Env = append(append([]string(nil), w.env...), env...)
	return cmd
}

// Run runs a Windows program in dir and returns its output and exit code.
func (w *Wine) Run(ctx context.Context, dir, exe string, args ...string) (stdout, stderr string, code int, err error) {
	cmd := w.Command(ctx, exe, args)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errOut.String(), exit.ExitCode(), nil
	}
	return out.String(), errOut.String(), 0, err
}

// BuildTest compiles the tests of package pkg (e.g. "./agents/") of the
// module at src for windows/amd64 into out (go test -c).
func BuildTest(ctx context.Context, src, pkg, out string) error {
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", out, pkg)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go test -c %s: %w: %s", pkg, err, lastLines(b, 10))
	}
	return nil
}

// ModuleRoot is the folder holding Lazuli's go.mod.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module")
	}
	return filepath.Dir(mod), nil
}

func withoutVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// lastLines is the last n lines of b, for an error message.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
