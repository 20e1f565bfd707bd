package proctime

import (
	"testing"
	"time"
)

func TestParseLoadavg(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr bool
	}{
		{"2.96 1.65 1.70 3/133 31913\n", 2.96, false},
		{"0.00 0.01 0.05 1/1 1", 0, false},
		{"", 0, true},
		{"high 1 1 1/1 1", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseLoadavg(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseLoadavg(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseCPUInfo(t *testing.T) {
	const info = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu model name\n\n" +
		"processor\t: 1\nmodel name\t: AMD EPYC other\n\n"
	model, cores := ParseCPUInfo(info)
	if model != "AMD EPYC 7B13" || cores != 2 {
		t.Errorf("ParseCPUInfo(%q) = %q, %d; want %q, 2", info, model, cores, "AMD EPYC 7B13")
	}
	if model, cores := ParseCPUInfo(""); model != "" || cores != 0 {
		t.Errorf("ParseCPUInfo(%q) = %q, %d; want \"\", 0", "", model, cores)
	}
}

func TestParseStatCPU(t *testing.T) {
	// Fields 14–17: utime 250, stime 50, cutime 7, cstime 3 ticks.
	const rest = " S 1 2 3 4 5 6 7 8 9 10 250 50 7 3 20 0 12 0 100 1000 200"
	tests := []struct {
		name    string
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"plain name", "4242 (agentsview)" + rest, 3100 * time.Millisecond, false},
		{"name with spaces and parentheses", "4242 (a b) (c))" + rest, 3100 * time.Millisecond, false},
		{"no name", "4242 agentsview" + rest, 0, true},
		{"cut short", "4242 (x) S 1 2 3 4 5 6 7 8 9 10 250 50", 0, true},
		{"not a number", "4242 (x) S 1 2 3 4 5 6 7 8 9 10 250 x 7 3 20", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatCPU(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseStatCPU(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParsePeakRSS(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"Name:\tx\nVmPeak:\t  900000 kB\nVmHWM:\t  126976 kB\nVmRSS:\t  100 kB\n", 126976, false},
		{"Name:\tzombie\nState:\tZ (zombie)\n", 0, true},
		{"VmHWM:\t12 MB\n", 0, true},
		{"VmHWM:\t kB\n", 0, true},
	}
	for _, tt := range tests {
		got, err := ParsePeakRSS(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParsePeakRSS(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func FuzzParseStatCPU(f *testing.F) {
	f.Add("4242 (a b) (c)) S 1 2 3 4 5 6 7 8 9 10 250 50 7 3 20")
	f.Add("1 (x")
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseStatCPU(s); err != nil && d != 0 {
			t.Errorf("ParseStatCPU(%q) = %v with error %v", s, d, err)
		}
	})
}

func TestResidentSplit(t *testing.T) {
	const status = "VmHWM:\t 1198080 kB\nVmRSS:\t  307200 kB\nRssAnon:\t  122880 kB\nRssFile:\t  184320 kB\nRssShmem:\t 0 kB\n"
	want := "RSS 300 MiB (anonymous 120 MiB, files 180 MiB)"
	if got := ResidentSplit(status); got != want {
		t.Errorf("ResidentSplit(%q) = %q, want %q", status, got, want)
	}
	if got := ResidentSplit("VmRSS:\t 1 kB\n"); got != "" {
		t.Errorf("ResidentSplit of a status without RssAnon = %q, want \"\"", got)
	}
}
