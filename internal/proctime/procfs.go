package proctime

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// clockTicks is Linux's USER_HZ, the unit of the CPU times in
// /proc/PID/stat: 100 on every architecture Go runs on.
const clockTicks = 100

// Machine names the computer a report was measured on.
type Machine struct {
	CPUModel string `json:"cpu_model"`
	Cores    int    `json:"cores"`
	Kernel   string `json:"kernel,omitempty"`
}

// ThisMachine reads the CPU model and core count from /proc/cpuinfo and
// the kernel release; where /proc is missing, the model is "unknown" and
// the cores are the ones this process may use.
func ThisMachine() Machine {
	m := Machine{CPUModel: "unknown", Cores: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		model, cores := ParseCPUInfo(string(b))
		if model != "" {
			m.CPUModel = model
		}
		if cores > 0 {
			m.Cores = cores
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// ParseCPUInfo returns the first "model name" of a /proc/cpuinfo text and
// how many processors it lists.
func ParseCPUInfo(cpuinfo string) (model string, cores int) {
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "processor":
			cores++
		case "model name":
			if model == "" {
				model = strings.TrimSpace(val)
			}
		}
	}
	return model, cores
}

// Load returns the 1-minute load average of /proc/loadavg, or -1 where it
// cannot be read.
func Load() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	l, err := ParseLoadavg(string(b))
	if err != nil {
		return -1
	}
	return l
}

// ParseLoadavg returns the 1-minute load average of a /proc/loadavg text
// ("0.52 0.58 0.59 1/457 12345").
func ParseLoadavg(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, fmt.Errorf("parse loadavg %q: empty", s)
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("parse loadavg %q: %w", s, err)
	}
	return l, nil
}

// ParseStatCPU returns the CPU time of a /proc/PID/stat text: user and
// system time of the process and of the children it has waited for
// (fields 14–17, in clock ticks of 10 ms). The command name in field 2
// may hold spaces and parentheses, so the fields are counted from the
// last ')'.
func ParseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("parse stat: no command name")
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); fields 14–17 are f[11:15].
	if len(f) < 15 {
		return 0, fmt.Errorf("parse stat: %d fields after the command name, want at least 15", len(f))
	}
	var ticks int64
	for _, s := range f[11:15] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// ParsePeakRSS returns the peak resident set size ("VmHWM:  123456 kB") of a
// /proc/PID/status text, in KiB.
func ParsePeakRSS(status string) (int64, error) {
	return statusKiB(status, "VmHWM")
}

// statusKiB returns the size in KiB of the line "KEY:  123 kB" of a
// /proc/PID/status text.
func statusKiB(status, key string) (int64, error) {
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		val, ok := strings.CutPrefix(sc.Text(), key+":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("parse status: %s %q", key, strings.TrimSpace(val))
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse status: %s: %w", key, err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("parse status: no %s line", key)
}

// ResidentSplit describes the resident memory of a /proc/PID/status text:
// "RSS 300 MiB (anonymous 120 MiB, files 180 MiB)", where files counts
// mapped files such as a database mapped with mmap. It returns "" when the
// lines are missing.
func ResidentSplit(status string) string {
	rss, err1 := statusKiB(status, "VmRSS")
	anon, err2 := statusKiB(status, "RssAnon")
	file, err3 := statusKiB(status, "RssFile")
	if err1 != nil || err2 != nil || err3 != nil {
		return ""
	}
	return fmt.Sprintf("RSS %s (anonymous %s, files %s)", FormatKiB(float64(rss)), FormatKiB(float64(anon)), FormatKiB(float64(file)))
}

// processUsage reads the CPU time, peak RSS and resident memory of a
// running process from /proc/PID/stat and /proc/PID/status.
func processUsage(pid int) (cpu time.Duration, rssKiB int64, memory string, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, "", err
	}
	if cpu, err = ParseStatCPU(string(stat)); err != nil {
		return 0, 0, "", err
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, "", err
	}
	rssKiB, err = ParsePeakRSS(string(status))
	return cpu, rssKiB, ResidentSplit(string(status)), err
}

// selfPeakRSS returns this process's peak RSS in KiB, 0 where it cannot be
// read. A child started with vfork (as os/exec starts it on Linux) keeps
// the parent's high-water mark at exec, so it is the floor of the peak
// RSS a child's rusage reports.
func selfPeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	kib, err := ParsePeakRSS(string(b))
	if err != nil {
		return 0
	}
	return kib
}
