package scale

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// The test binary doubles as the child process of the process and memory
// benchmarks: TestMain runs runChild when childEnv is set.
const (
	childEnv     = "LAZULI_SCALE_CHILD"       // "list", "memory" or "memory-whole"
	heapEnv      = "LAZULI_SCALE_HEAPPROFILE" // where the memory child writes a heap profile
	childMarker  = "scale-child: "
	childTimeout = 10 * time.Minute
)

// childReport is what a child prints, after childMarker, as JSON.
type childReport struct {
	Sessions int `json:"sessions"`
	Events   int `json:"events"` // of the loaded session
	Queries  int `json:"queries"`
	Hits     int `json:"hits"`

	ListMS   float64 `json:"list_ms"`   // Open and ListSessions
	LoadMS   float64 `json:"load_ms"`   // LoadEvents of the biggest session
	SearchMS float64 `json:"search_ms"` // search.Open and every query

	RSSKB      int64  `json:"vm_rss_kb"` // /proc/self/status at the end
	HWMKB      int64  `json:"vm_hwm_kb"` // peak resident set size
	HeapInuse  uint64 `json:"heap_inuse"`
	HeapSys    uint64 `json:"heap_sys"`
	GoSys      uint64 `json:"go_sys"` // all memory the Go runtime got from the OS
	NumGC      uint32 `json:"num_gc"`
	GoMaxProcs int    `json:"gomaxprocs"`
}

// runChild does the work of one child process and prints its report.
func runChild(mode string) int {
	r, err := childWork(context.Background(), mode, os.Getenv(StoreEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale child:", err)
		return 1
	}
	js, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale child:", err)
		return 1
	}
	fmt.Println(childMarker + string(js))
	return 0
}

// windowEvents is how many of a long session's newest events the window
// loads and holds (app's windowEvents; internal/scale cannot import app).
const windowEvents = 2_000

// childWork opens the store and lists its sessions; the memory child then
// loads the biggest session as the window does (its newest windowEvents
// events; all of them in mode memory-whole), opens the search index and
// runs every query of scaleQueries, keeping the loaded events, and reports
// the memory the process uses with all of that open.
func childWork(ctx context.Context, mode, path string) (childReport, error) {
	var r childReport
	start := time.Now()
	st, err := store.Open(ctx, path)
	if err != nil {
		return r, err
	}
	defer st.Close()
	list, err := st.Sessions().List(ctx, "")
	if err != nil {
		return r, err
	}
	r.Sessions = len(list)
	r.ListMS = ms(time.Since(start))
	if mode == "list" {
		return r, nil
	}
	if mode != "memory" && mode != "memory-whole" {
		return r, fmt.Errorf("unknown child mode %q", mode)
	}
	var big store.Session
	for _, s := range list {
		if s.EventCount > big.EventCount {
			big = s
		}
	}
	start = time.Now()
	var from int64 // mode memory-whole: from the start
	if mode == "memory" {
		if from, _, err = st.Events().TailStart(ctx, big.ID, 0, windowEvents); err != nil {
			return r, err
		}
	}
	events, err := st.Events().Range(ctx, big.ID, from, 0)
	if err != nil {
		return r, err
	}
	r.Events = len(events)
	r.LoadMS = ms(time.Since(start))

	start = time.Now()
	x, err := search.Open(ctx, st)
	if err != nil {
		return r, err
	}
	defer x.Close()
	for _, q := range scaleQueries {
		res, err := x.Search(ctx, q.text, search.Options{Limit: searchLimit, Budget: search.TypingBudget})
		if err != nil {
			return r, fmt.Errorf("search %q: %w", q.text, err)
		}
		r.Queries++
		r.Hits += len(res.Hits)
	}
	r.SearchMS = ms(time.Since(start))

	r.RSSKB, r.HWMKB, err = procMemory()
	if err != nil {
		return r, err
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	r.HeapInuse, r.HeapSys, r.GoSys, r.NumGC = m.HeapInuse, m.HeapSys, m.Sys, m.NumGC
	r.GoMaxProcs = runtime.GOMAXPROCS(0)
	if p := os.Getenv(heapEnv); p != "" {
		if err := writeHeapProfile(p); err != nil {
			return r, err
		}
	}
	runtime.KeepAlive(events) // the transcript the window would be showing
	runtime.KeepAlive(list)
	return r, nil
}

// procMemory reads VmRSS and VmHWM, in KiB, from /proc/self/status.
func procMemory() (rss, hwm int64, _ error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("read %s: %w", name, err)
		}
		if name == "VmRSS" {
			rss = n
		} else {
			hwm = n
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	return rss, hwm, nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // the profile shows what was live at the last collection
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// startChild starts the test binary as a child in mode, with the current
// environment (the cache folder included) and the store, and returns its
// report.
func startChild(tb testing.TB, mode, path string, env ...string) childReport {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, childEnv+"="+mode, StoreEnv+"="+path)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		tb.Fatalf("child %s: %v: %s", mode, err, errOut.Bytes())
	}
	for line := range strings.SplitSeq(out.String(), "\n") {
		if js, ok := strings.CutPrefix(line, childMarker); ok {
			var r childReport
			if err := json.Unmarshal([]byte(js), &r); err != nil {
				tb.Fatalf("child %s report: %v", mode, err)
			}
			return r
		}
	}
	tb.Fatalf("child %s printed no report: %s", mode, out.Bytes())
	return childReport{}
}

// runChildList lists the sessions in a new process and returns how many
// there are.
func runChildList(b *testing.B, path string) int {
	return startChild(b, "list", path).Sessions
}
