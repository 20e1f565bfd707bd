package proctime

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// stopDelay is how long a process interrupted at the end of a measurement
// (or by the timeout) has to exit before it is killed.
const stopDelay = 10 * time.Second

// Sample is one measurement of a spec.
type Sample struct {
	Wall time.Duration // exec (or the request) to exit (or ready, or the last byte)
	// CPU is the user + system time of the process and the children it
	// waited for; -1 when not known (an HTTP GET).
	CPU    time.Duration
	RSSKiB int64    // peak resident set size; 0 when not known
	Output []string // for a ready spec: the last lines before the ready line
	// Memory is, for a ready spec, its resident memory when ready, split
	// into anonymous and file pages (ResidentSplit).
	Memory string
}

// Measure runs s once. A command that fails (exits with a status other
// than 0, or ends before its ready line) and an HTTP status other than
// 200 are errors that quote the end of what it printed.
func Measure(ctx context.Context, s Spec) (Sample, error) {
	switch s.Kind() {
	case "http":
		return measureHTTP(ctx, s)
	case "ready":
		return measureReady(ctx, s)
	}
	return measureProcess(ctx, s)
}

// command prepares s's process: its environment, an interrupt before any
// kill, and standard error into errf.
func command(ctx context.Context, s Spec, errf *os.File) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.Args[0], s.Args[1:]...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = stopDelay
	cmd.Stderr = errf
	return cmd
}

// measureProcess times s from just before the fork to the return of wait:
// what a user who runs it meets. CPU and peak RSS are the kernel's rusage
// of the child, so their resolution does not depend on the clock ticks.
func measureProcess(ctx context.Context, s Spec) (Sample, error) {
	errf, err := os.CreateTemp("", "proctime-stderr-*")
	if err != nil {
		return Sample{}, err
	}
	defer os.Remove(errf.Name())
	defer errf.Close()
	out, err := openStdout(s.Stdout)
	if err != nil {
		return Sample{}, err
	}
	defer out.Close()
	cmd := command(ctx, s, errf)
	cmd.Stdout = out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Sample{}, fmt.Errorf("start %s: %w", s.Command(), err)
	}
	err = cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w%s", s.Command(), err, fileTail(errf))
	}
	cpu, rss := usage(cmd.ProcessState)
	return Sample{Wall: wall, CPU: cpu, RSSKiB: rss}, nil
}

func openStdout(path string) (*os.File, error) {
	if path == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("standard output file: %w", err)
	}
	return f, nil
}

// measureReady times s from just before the fork to the first line of its
// standard output that s.Ready matches, reads the process's CPU time and
// peak RSS from /proc at that moment, then interrupts it and waits for it.
func measureReady(ctx context.Context, s Spec) (Sample, error) {
	errf, err := os.CreateTemp("", "proctime-stderr-*")
	if err != nil {
		return Sample{}, err
	}
	defer os.Remove(errf.Name())
	defer errf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return Sample{}, err
	}
	defer r.Close()
	cmd := command(ctx, s, errf)
	cmd.Stdout = w
	start := time.Now()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return Sample{}, fmt.Errorf("start %s: %w", s.Command(), err)
	}
	matched, lines := scanReady(r, s.Ready)
	wall := time.Since(start)
	var smp Sample
	var uerr error
	if matched {
		smp = Sample{Wall: wall, Output: lines}
		smp.CPU, smp.RSSKiB, smp.Memory, uerr = processUsage(cmd.Process.Pid)
		_ = cmd.Process.Signal(os.Interrupt) // it may have exited already; Wait says
		kill := time.AfterFunc(stopDelay, func() { _ = cmd.Process.Kill() })
		defer kill.Stop()
	}
	_, _ = io.Copy(io.Discard, r) // the rest, until it exits; only the ready line counts
	werr := cmd.Wait()
	switch {
	case !matched:
		return Sample{}, fmt.Errorf("%s: ended (%v) before a line matching %q; it printed: %s%s",
			s.Command(), werr, s.Ready, strings.Join(lines, " | "), fileTail(errf))
	case uerr != nil && cmd.ProcessState != nil:
		// It exited on its own before /proc was read: its rusage holds
		// the same figures.
		smp.CPU, smp.RSSKiB = usage(cmd.ProcessState)
	case uerr != nil:
		return Sample{}, fmt.Errorf("%s: read its usage: %w", s.Command(), uerr)
	}
	return smp, nil
}

// scanReady reads lines from r until one matches re. It returns whether
// one did and the last few lines before it (of a line rewritten with
// carriage returns, what a terminal would show).
func scanReady(r io.Reader, re *regexp.Regexp) (bool, []string) {
	const keep = 4
	var tail []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.LastIndexByte(strings.TrimRight(line, "\r"), '\r'); i >= 0 {
			line = line[i+1:]
		}
		line = strings.TrimSpace(line)
		if re.MatchString(line) {
			return true, append(tail, line)
		}
		if line != "" {
			tail = append(tail, line)
			if len(tail) > keep {
				tail = tail[1:]
			}
		}
	}
	return false, tail
}

// measureHTTP times a GET of s.URL on a new connection, from the request
// to the last byte of the body.
func measureHTTP(ctx context.Context, s Spec) (Sample, error) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return Sample{}, err
	}
	var body bytes.Buffer
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return Sample{}, fmt.Errorf("GET %s: %w", s.URL, err)
	}
	_, err = io.Copy(&body, resp.Body)
	resp.Body.Close()
	wall := time.Since(start)
	if err != nil {
		return Sample{}, fmt.Errorf("GET %s: %w", s.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return Sample{}, fmt.Errorf("GET %s: %s: %.200s", s.URL, resp.Status, body.Bytes())
	}
	return Sample{Wall: wall, CPU: -1}, nil
}

// fileTail returns ": " and the last 400 bytes of f, on one line, or ""
// when f is empty.
func fileTail(f *os.File) string {
	b, err := os.ReadFile(f.Name())
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	if len(b) > 400 {
		b = b[len(b)-400:]
	}
	return ": " + strings.Join(strings.Fields(string(b)), " ")
}
