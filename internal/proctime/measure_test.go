package proctime

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestMain runs the test binary as a scripted child when
// PROCTIME_TEST_HELPER names what it should do.
func TestMain(m *testing.M) {
	mode := os.Getenv("PROCTIME_TEST_HELPER")
	if mode == "" {
		os.Exit(m.Run())
	}
	if log := os.Getenv("PROCTIME_TEST_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getenv("PROCTIME_TEST_NAME"))
			f.Close()
		}
	}
	switch mode {
	case "ok":
		fmt.Println("out")
	case "fail":
		fmt.Fprintln(os.Stderr, "boom: bad flag")
		os.Exit(3)
	case "serve":
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt)
		fmt.Print("starting\n  1/2 sessions\r  2/2 sessions\n")
		fmt.Println("Sync complete: 2 sessions synced")
		fmt.Println("listening at http://127.0.0.1:1")
		<-stop
	case "quit":
		fmt.Println("starting")
		os.Exit(1)
	}
	os.Exit(0)
}

// helper is a spec that runs this test binary in mode.
func helper(program, mode string) Spec {
	return Spec{Program: program, Row: mode, Args: []string{os.Args[0], "-test.run=^$"},
		Env: []string{"PROCTIME_TEST_HELPER=" + mode, "PROCTIME_TEST_NAME=" + program}}
}

func TestMeasureProcess(t *testing.T) {
	s := helper("a", "ok")
	s.Stdout = filepath.Join(t.TempDir(), "out")
	smp, err := Measure(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if smp.Wall <= 0 || smp.CPU < 0 || (runtime.GOOS == "linux" && smp.RSSKiB <= 0) {
		t.Errorf("Measure(ok) = %+v, want a wall time, a CPU time and (on Linux) a peak RSS", smp)
	}
	if b, err := os.ReadFile(s.Stdout); err != nil || string(b) != "out\n" {
		t.Errorf("its standard output file holds %q, %v; want %q", b, err, "out\n")
	}
}

func TestMeasureProcessFails(t *testing.T) {
	_, err := Measure(context.Background(), helper("a", "fail"))
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "boom: bad flag") {
		t.Errorf("Measure(fail) = %v, want its exit status and its standard error", err)
	}
}

func TestMeasureReady(t *testing.T) {
	s := helper("a", "serve")
	s.Ready = regexp.MustCompile(`listening at`)
	smp, err := Measure(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"starting", "2/2 sessions", "Sync complete: 2 sessions synced", "listening at http://127.0.0.1:1"}
	if !slices.Equal(smp.Output, want) {
		t.Errorf("Measure(serve).Output = %q, want %q", smp.Output, want)
	}
	if smp.Wall <= 0 || smp.CPU < 0 || (runtime.GOOS == "linux" && (smp.RSSKiB <= 0 || !strings.HasPrefix(smp.Memory, "RSS "))) {
		t.Errorf("Measure(serve) = %+v, want a wall time, a CPU time and (on Linux) a peak RSS and its split", smp)
	}
}

func TestMeasureReadyNever(t *testing.T) {
	s := helper("a", "quit")
	s.Ready = regexp.MustCompile(`listening at`)
	_, err := Measure(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "before a line matching") || !strings.Contains(err.Error(), "starting") {
		t.Errorf("Measure(quit) = %v, want an error quoting what it printed", err)
	}
}

func TestMeasureHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("q") == "bad" {
			http.Error(w, "query required", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"results":[]}`))
	}))
	defer srv.Close()
	smp, err := Measure(context.Background(), Spec{URL: srv.URL + "/?q=x"})
	if err != nil || smp.Wall <= 0 || smp.CPU != -1 {
		t.Errorf("Measure(GET) = %+v, %v; want a wall time and CPU -1", smp, err)
	}
	_, err = Measure(context.Background(), Spec{URL: srv.URL + "/?q=bad"})
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "query required") {
		t.Errorf("Measure(GET of a 400) = %v, want the status and the body", err)
	}
}

func TestScanReady(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		matched bool
		tail    []string
	}{
		{"match", "a\nb\nlistening at x\nlater\n", true, []string{"a", "b", "listening at x"}},
		{"carriage returns keep what a terminal shows", "\r 1/3\r 2/3\r 3/3\nlistening\n", true, []string{"3/3", "listening"}},
		{"tail of four before the match", "1\n2\n3\n4\n5\n6\nlistening\n", true, []string{"3", "4", "5", "6", "listening"}},
		{"blank lines dropped", "a\n\n  \nlistening", true, []string{"a", "listening"}},
		{"no match", "1\n2\n3\n4\n5\n", false, []string{"2", "3", "4", "5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			matched, tail := scanReady(strings.NewReader(tt.in), regexp.MustCompile("listening"))
			if matched != tt.matched || !slices.Equal(tail, tt.tail) {
				t.Errorf("scanReady(%q) = %v, %q; want %v, %q", tt.in, matched, tail, tt.matched, tt.tail)
			}
		})
	}
}
