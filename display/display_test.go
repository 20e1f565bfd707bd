package display

import (
	"strings"
	"testing"
)

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 812: "812 B", 1024: "1.0 KiB", 12_595: "12.3 KiB", 4 << 20: "4.0 MiB", 1536 << 20: "1.5 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDurationBadge(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		{0, "0s"}, {499, "0s"}, {500, "0s"}, {1500, "2s"}, {2500, "2s"}, {42000, "42s"},
		{59499, "59s"}, {59500, "60s"}, {59999, "60s"}, {60000, "1m"}, {89999, "1m"},
		{90000, "2m"}, {150000, "2m"}, {180000, "3m"}, {3600000, "60m"}, {-1, "307445734561826m"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := DurationBadge(tc.ms); got != tc.want {
				t.Errorf("DurationBadge(%d) = %q, want %q", tc.ms, got, tc.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 123456: "123,456", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 events"}, {1, "1 event"}, {2, "2 events"}, {1679, "1,679 events"}} {
		if got := Plural(tc.n, "event"); got != tc.want {
			t.Errorf("Plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
		if got := Plural(int64(tc.n), "event"); got != tc.want {
			t.Errorf("Plural(int64(%d)) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestPluralNouns: nouns whose plural takes "es" get it.
func TestPluralNouns(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{2, "match", "2 matches"}, {1, "match", "1 match"}, {3, "process", "3 processes"}, {2, "box", "2 boxes"},
		{2, "session", "2 sessions"}, {2, "sub-agent", "2 sub-agents"}, {2, "possible secret", "2 possible secrets"},
	} {
		if got := Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

func TestToolInput(t *testing.T) {
	for in, want := range map[string]string{
		"": "", " null ": "", "{}": "", `{"a":1,"b":[2]}`: "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}", "not json": "not json",
	} {
		if got := ToolInput([]byte(in)); got != want {
			t.Errorf("ToolInput(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShort(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 9999: "9999", 12345: "12.3k", 4_500_000: "4.5M", 1_230_000_000: "1.2G"} {
		if got := Short(n); got != want {
			t.Errorf("Short(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestOrList(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a b": "a or b", "a b c": "a, b or c"} {
		if got := OrList(strings.Fields(in)); got != want {
			t.Errorf("OrList(%q) = %q, want %q", in, got, want)
		}
	}
}
