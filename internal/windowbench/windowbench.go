// Package windowbench measures the window's felt latency: it runs the real
// window (GLFW under a private Xvfb, Mesa's software GL) with LAZULI_TRACE
// set, drives it with xdotool as a person would (a click, keys, a resize),
// and times each action from its input event to the first frame painted
// after the window showed the result (the trace's "input", "ready" and
// "frame" points, internal/trace). Start is timed from the exec.
//
// scripts/bench-window.sh runs it on the scale store, the native workload's
// store or any other; BenchmarkWindow runs it under go test.
package windowbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/trace"
)

// Actions are the actions measured, in the order of the table.
var Actions = []string{"start", "switch_400", "switch_50k", "search", "open_hit", "find_next", "home_end", "resize"}

// Config is one run of the benchmark.
type Config struct {
	Window   string // the lazuli-window binary
	Project  string // the worktree the window opens (its .azureal/sessions.azs)
	CacheDir string // LAZULI_CACHE_DIR: the search index, built before
	Rounds   int    // starts of the window; every other action runs Rounds×PerStart times
	PerStart int    // repetitions of each action in one start of the window
	Small    string // the name of the session of about 400 events ("" skips switch_400)
	Big      string // the name of the big session ("" skips switch_50k, find_next, home_end)
	BigCount int64  // its events: under 5,000, its switches count as switch_400
	Queries  []string
	Find     string        // the word Ctrl+F looks for in the big session
	Timeout  time.Duration // the longest one action may take
	Log      io.Writer     // progress and the window's own output; nil: none
	FailShot string        // where to save a screenshot when an action fails; "": none
	// Only, when set, names the groups of actions to run: "switch",
	// "keys" (find_next, home_end), "search" (search, open_hit), "resize".
	Only []string
}

// Samples are the latencies measured, by action.
type Samples map[string][]time.Duration

// Stat is the summary of one action's samples.
type Stat struct {
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	N   int     `json:"n"`
}

// Summary returns each action's median and 95th percentile in ms.
func (s Samples) Summary() map[string]Stat {
	out := make(map[string]Stat, len(s))
	for a, d := range s {
		if len(d) == 0 {
			continue
		}
		out[a] = Stat{P50: ms(Percentile(d, 50)), P95: ms(Percentile(d, 95)), N: len(d)}
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Percentile returns the p-th percentile of d (nearest rank).
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := int(p/100*float64(len(s))+0.999999) - 1
	return s[max(0, min(rank, len(s)-1))]
}

// The window's size while it is driven, and the narrow width of the resize.
const (
	wideW, wideH = 1600, 1000
	narrowW      = 800
)

// Run measures cfg.Rounds starts of the window and, in each, the other
// actions.
func Run(ctx context.Context, cfg Config) (Samples, error) {
	if cfg.Rounds <= 0 {
		cfg.Rounds = 5
	}
	if cfg.PerStart <= 0 {
		cfg.PerStart = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 90 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	for _, tool := range []string{"Xvfb", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s not found (scripts/install-deps.sh --gui installs it): %w", tool, err)
		}
	}
	x, err := startXvfb(ctx)
	if err != nil {
		return nil, err
	}
	defer x.stop()
	samples := Samples{}
	for round := range cfg.Rounds {
		fmt.Fprintf(cfg.Log, "windowbench: round %d/%d\n", round+1, cfg.Rounds)
		if err := runOnce(ctx, cfg, x, samples); err != nil {
			return samples, fmt.Errorf("round %d: %w", round+1, err)
		}
	}
	return samples, nil
}

// xvfb is a private X server.
type xvfb struct {
	cmd     *exec.Cmd
	display string
}

func startXvfb(ctx context.Context) (*xvfb, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, "Xvfb", "-displayfd", "3", "-screen", "0", "1700x1100x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start Xvfb: %w", err)
	}
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("no display from Xvfb: %w", err)
	}
	return &xvfb{cmd: cmd, display: ":" + strings.TrimSpace(line)}, nil
}

// capture saves the screen to path, when path is set, and says so.
func (x *xvfb) capture(path string) string {
	if path == "" {
		return ""
	}
	cmd := exec.Command("import", "-window", "root", path)
	cmd.Env = append(os.Environ(), "DISPLAY="+x.display)
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf(" (no screenshot: %v)", err)
	}
	return " (the screen then: " + path + ")"
}

func (x *xvfb) stop() {
	_ = x.cmd.Process.Kill()
	_ = x.cmd.Wait()
}

// session is one running window and its trace.
type session struct {
	cfg     Config
	display string
	cmd     *exec.Cmd
	lines   chan trace.Line
	mu      sync.Mutex
	inputs  map[string]time.Time // the last input point of each detail
	readies map[string]time.Time // the last ready point of each detail
	// unmeasured are the times the transcript laid out a row at a height
	// it had not measured (views' "stage unmeasured row N"): between a
	// ready point and its frame, that frame drew cards over each other.
	unmeasured []time.Time
	window     string // X window id
	size       [2]int // the window's size, once resized
	geom       sidebarGeom
}

// sidebarGeom is where the sidebar's list is and which sessions its rows
// show (the trace's "geom" points).
type sidebarGeom struct {
	x, y, w, h, rowH, pad float64
	rows                  []string // "S12", "header"
	filter                [4]float64
}

func runOnce(ctx context.Context, cfg Config, x *xvfb, samples Samples) (err error) {
	display := x.display
	home, err := os.MkdirTemp("", "windowbench-home-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	if err := os.MkdirAll(filepath.Join(home, ".cache"), 0o700); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, cfg.Window, cfg.Project)
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR="+home, "LIBGL_ALWAYS_SOFTWARE=1", "WAYLAND_DISPLAY=", "FYNE_SCALE=1",
		"LAZULI_TRACE=1", "LAZULI_CACHE_DIR="+cfg.CacheDir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	cmd.Stdout = cfg.Log
	s := &session{cfg: cfg, display: display, cmd: cmd, lines: make(chan trace.Line, 4096), inputs: map[string]time.Time{},
		readies: map[string]time.Time{}}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", cfg.Window, err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	go s.read(stderr)
	defer func() { // before the window is stopped
		if err != nil {
			err = fmt.Errorf("%w%s", err, x.capture(cfg.FailShot))
		}
	}()
	frame, err := s.waitFrame("start", t0)
	if err != nil {
		return err
	}
	samples["start"] = append(samples["start"], frame.Sub(t0))
	if err := s.findWindow(); err != nil {
		return err
	}
	if _, err := s.resize(wideW, wideH); err != nil {
		return err
	}
	// The sidebar keeps its place and width at the window's top left.
	if err := s.waitGeom(); err != nil {
		return err
	}
	if (cfg.Small != "" || cfg.Big != "") && cfg.runs("switch") {
		if err := s.switches(samples); err != nil {
			return err
		}
	}
	if cfg.Big != "" && cfg.runs("keys") {
		if !cfg.runs("switch") { // the switches leave the big session shown
			if err := s.showBig(); err != nil {
				return err
			}
		}
		if err := s.findAndKeys(samples); err != nil {
			return err
		}
	}
	if len(cfg.Queries) > 0 && cfg.runs("search") {
		if err := s.searches(samples); err != nil {
			return err
		}
	}
	if cfg.runs("resize") {
		return s.resizes(samples)
	}
	return nil
}

// runs reports whether the group of actions runs.
func (cfg *Config) runs(group string) bool {
	return len(cfg.Only) == 0 || slices.Contains(cfg.Only, group)
}

// read parses the window's standard error into trace lines; the rest goes
// to the log.
func (s *session) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		l, ok := trace.Parse(sc.Text())
		fmt.Fprintln(s.cfg.Log, sc.Text())
		if !ok {
			continue
		}
		switch l.Point {
		case "input":
			s.mu.Lock()
			s.inputs[l.Detail] = l.Time
			s.mu.Unlock()
		case "geom":
			s.mu.Lock()
			s.takeGeom(l.Detail)
			s.mu.Unlock()
		case "ready":
			s.mu.Lock()
			s.readies[l.Detail] = l.Time
			s.mu.Unlock()
		case "stage":
			if strings.HasPrefix(l.Detail, "unmeasured ") {
				s.mu.Lock()
				s.unmeasured = append(s.unmeasured, l.Time)
				s.mu.Unlock()
			}
		}
		s.lines <- l
	}
	close(s.lines)
}

// errExited is returned when the window exits while an action is awaited.
var errExited = errors.New("the window exited")

// wait returns the first trace line from now on that match accepts.
func (s *session) wait(what string, match func(trace.Line) bool) (trace.Line, error) {
	timer := time.NewTimer(s.cfg.Timeout)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return l, fmt.Errorf("waiting for %s: %w", what, errExited)
			}
			if match(l) {
				return l, nil
			}
		case <-timer.C:
			return trace.Line{}, fmt.Errorf("waiting for %s: no trace after %v", what, s.cfg.Timeout)
		}
	}
}

// waitFrame waits for the frame of the ready point detail, painted after
// since. A frame that laid out a transcript row at a height not measured
// yet is no result (cards over each other): an error.
func (s *session) waitFrame(detail string, since time.Time) (time.Time, error) {
	l, err := s.wait("frame "+detail, func(l trace.Line) bool {
		return l.Point == "frame" && l.Detail == detail && !l.Time.Before(since)
	})
	if err != nil {
		return l.Time, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ready, ok := s.readies[detail]; ok && garbled(s.unmeasured, ready, l.Time) {
		return l.Time, fmt.Errorf("the frame of %q drew transcript rows before they were measured (cards over each other)", detail)
	}
	return l.Time, nil
}

// garbled reports whether a row was laid out unmeasured between a ready
// point and its frame.
func garbled(unmeasured []time.Time, ready, frame time.Time) bool {
	for _, t := range unmeasured {
		if !t.Before(ready) && !t.After(frame) {
			return true
		}
	}
	return false
}

// waitFramePrefix is waitFrame for any detail starting with prefix.
func (s *session) waitFramePrefix(prefix string, since time.Time) (time.Time, error) {
	l, err := s.wait("frame "+prefix+"…", func(l trace.Line) bool {
		return l.Point == "frame" && strings.HasPrefix(l.Detail, prefix) && !l.Time.Before(since)
	})
	return l.Time, err
}

// input returns the time of the last input point detail.
func (s *session) input(detail string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.inputs[detail]
	return t, ok
}

// settle drains trace lines until the window has been quiet for a moment.
func (s *session) settle() {
	for {
		select {
		case _, ok := <-s.lines:
			if !ok {
				return
			}
		case <-time.After(400 * time.Millisecond):
			return
		}
	}
}

// xdo runs xdotool on the window's display.
func (s *session) xdo(args ...string) (string, error) {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+s.display)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("xdotool %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

func (s *session) findWindow() error {
	out, err := s.xdo("search", "--sync", "--name", "^Lazuli")
	if err != nil {
		return err
	}
	s.window = strings.Fields(out)[0]
	_, err = s.xdo("windowmove", s.window, "0", "0")
	return err
}

// resize resizes the window and returns the time from the request to the
// frame of the relaid-out transcript.
func (s *session) resize(w, h int) (time.Duration, error) {
	if s.size == [2]int{w, h} {
		return 0, nil
	}
	s.size = [2]int{w, h}
	s.settle()
	t0 := time.Now()
	if _, err := s.xdo("windowsize", s.window, strconv.Itoa(w), strconv.Itoa(h)); err != nil {
		return 0, err
	}
	f, err := s.waitFramePrefix("resize ", t0)
	if err != nil {
		return 0, err
	}
	return f.Sub(t0), nil
}

var (
	geomSidebar = regexp.MustCompile(`^sidebar (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)$`)
	geomFilter  = regexp.MustCompile(`^filter (\S+) (\S+) (\S+) (\S+)$`)
)

// waitGeom waits for the sidebar's geometry and rows.
func (s *session) waitGeom() error {
	return s.waitFor("the sidebar's geometry", func(g *sidebarGeom) bool { return g.rowH > 0 && g.filter[2] > 0 })
}

// waitFor waits until ok accepts the sidebar's geometry.
func (s *session) waitFor(what string, ok func(*sidebarGeom) bool) error {
	deadline := time.Now().Add(s.cfg.Timeout)
	for {
		s.mu.Lock()
		done := ok(&s.geom)
		s.mu.Unlock()
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for %s: no trace after %v", what, s.cfg.Timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *session) takeGeom(detail string) {
	f := func(v string) float64 { x, _ := strconv.ParseFloat(v, 64); return x }
	if m := geomSidebar.FindStringSubmatch(detail); m != nil {
		s.geom.x, s.geom.y, s.geom.w, s.geom.h, s.geom.rowH, s.geom.pad = f(m[1]), f(m[2]), f(m[3]), f(m[4]), f(m[5]), f(m[6])
	}
	if m := geomFilter.FindStringSubmatch(detail); m != nil {
		s.geom.filter = [4]float64{f(m[1]), f(m[2]), f(m[3]), f(m[4])}
	}
	if rest, ok := strings.CutPrefix(detail, "rows "); ok {
		s.geom.rows = strings.Split(rest, ",")
	}
}

// filterTo types name into the sidebar's name filter and waits for the
// rows it shows.
func (s *session) filterTo(name string, want []string) error {
	s.mu.Lock()
	fx, fy := s.geom.filter[0]+s.geom.filter[2]/2, s.geom.filter[1]+s.geom.filter[3]/2
	s.mu.Unlock()
	if _, err := s.xdo("mousemove", ftoa(fx), ftoa(fy), "click", "1", "key", "ctrl+a", "BackSpace", "type", "--delay", "20", name); err != nil {
		return err
	}
	return s.waitFor("the sidebar filtered to "+name, func(g *sidebarGeom) bool {
		for _, w := range want {
			if !slices.Contains(g.rows, w) {
				return false
			}
		}
		return true
	})
}

func ftoa(v float64) string { return strconv.Itoa(int(v + 0.5)) }

// clickRow clicks the sidebar row showing ref (e.g. "S12").
func (s *session) clickRow(ref string) error {
	s.mu.Lock()
	g := s.geom
	s.mu.Unlock()
	i := slices.Index(g.rows, ref)
	if i < 0 {
		return fmt.Errorf("%s is not in the sidebar's rows %v", ref, g.rows)
	}
	y := g.y + float64(i)*(g.rowH+g.pad) + g.rowH/2
	_, err := s.xdo("mousemove", ftoa(g.x+g.w/2), ftoa(y), "click", "1")
	return err
}

// timed waits for the frame of ready point detail after the input point
// input, and returns the time between them.
func (s *session) timed(input, detail string, since time.Time) (time.Duration, error) {
	f, err := s.waitFrame(detail, since)
	if err != nil {
		return 0, err
	}
	in, ok := s.input(input)
	if !ok || in.Before(since) {
		return 0, fmt.Errorf("no input point %q before the frame of %q", input, detail)
	}
	return f.Sub(in), nil
}
