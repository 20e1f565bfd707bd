package winetest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// ShotEnv names a file where TestWindowUnderWine keeps its screenshot
// (make wine-test: out/windows/wine-window.png).
const ShotEnv = "LAZULI_WINE_SHOT"

// minColours is the fewest distinct colours the screenshot of a window
// showing a session has; a blank one has one or two.
const minColours = 64

// TestWindowUnderWine starts lazuli-window.exe under Wine on Xvfb at a
// session of a store (a Windows path on drive Z:), waits until the window
// says, through its trace points (LAZULI_TRACE), that it painted the
// session's transcript, and checks that the screen is not blank.
func TestWindowUnderWine(t *testing.T) {
	e := setup(t)
	fixtures.NeedTool(t, "Xvfb")
	fixtures.NeedTool(t, "import")
	exe := e.binary(t, true)
	claude := fixtures.Dir(t, "real-cli", "claude-a-multitool", "stdout.jsonl")

	dir := t.TempDir()
	store := filepath.Join(dir, "s.azs")
	linux(t, dir, "import", "--store", store, "--name", "claude under Wine", claude)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang guard, not a speed limit
	defer cancel()
	x, err := StartXvfb(ctx, "1200x800x24")
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()

	cmd := e.wine.Command(ctx, exe, []string{"--open", WinPath(store), "--session", "S1"},
		"DISPLAY="+x.Display, "LAZULI_TRACE=1")
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait() // killed: its exit status says so
	}()
	shown := regexp.MustCompile(`^lazuli-trace \d+ frame show S1$`)
	var log []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log = append(log, sc.Text())
		if shown.MatchString(sc.Text()) {
			break
		}
	}
	if len(log) == 0 || !shown.MatchString(log[len(log)-1]) {
		t.Fatalf("the window ended or stopped writing before it showed S1 (%v); its stderr:\n%s", ctx.Err(), lastLines([]byte(join(log)), 20))
	}
	go func() {
		for sc.Scan() { // keep its pipe drained
		}
	}()

	shot := os.Getenv(ShotEnv)
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "wine-window.png")
	}
	img, err := x.Screenshot(ctx, shot)
	if err != nil {
		t.Fatal(err)
	}
	if n := Colours(img); n < minColours {
		t.Errorf("the screen has %d colours, want at least %d (blank?): %s", n, minColours, shot)
	}
	t.Logf("screenshot: %s", shot)
}

func join(lines []string) string {
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	return string(b)
}
