// Package display formats figures for people, the same way in the window,
// the command line and exports: sizes ("12.3 KiB"), counts with thousands
// separators ("437,472"), plurals ("3 events") and the session list's
// duration badge ("42s", "3m"), and a tool call's input shown as indented
// JSON. It imports nothing of ours and never imports Fyne.
package display

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Bytes formats a byte count: "812 B", "12.3 KiB", "4.0 MiB", "1.2 GiB".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// DurationBadge formats a completed session's duration for the session
// list (spec §3.5): whole seconds below a minute ("42s"), else whole minutes
// ("3m"), both rounded half to even like Rust's {:.0}. The column holds
// AZUREAL's `as i64` of the turn's u64 milliseconds, and AZUREAL reads it
// back `as u64`, so a negative value is a duration above i64's range.
func DurationBadge(durationMS int64) string {
	secs := float64(uint64(durationMS)) / 1000
	if secs >= 60 {
		return strconv.FormatFloat(secs/60, 'f', 0, 64) + "m"
	}
	return strconv.FormatFloat(secs, 'f', 0, 64) + "s"
}

// Count writes n with comma thousands separators: 437,472.
func Count[N ~int | ~int64](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// Short writes a count compactly, for tight places: 950, 9999, 12.3k,
// 4.5M, 1.2G.
func Short[N ~int | ~int64](n N) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return strconv.FormatFloat(f/1e9, 'f', 1, 64) + "G"
	case f >= 1e6:
		return strconv.FormatFloat(f/1e6, 'f', 1, 64) + "M"
	case f >= 1e4:
		return strconv.FormatFloat(f/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatInt(int64(n), 10)
}

// Plural formats n and noun: "1 event", "3 events", "1,024 events",
// "2 matches". It is the one place a count meets its noun: an English
// noun ending in s, x, z, ch or sh takes "es".
func Plural[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Count(n) + " " + plural(noun)
}

// OrList joins items as a choice in prose: "a", "a or b", "a, b or c".
func OrList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// plural is noun's regular English plural.
func plural(noun string) string {
	for _, end := range []string{"s", "x", "z", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			return noun + "es"
		}
	}
	return noun + "s"
}

// ToolInput indents a tool call's input; an empty object or null is "", and
// input that is not JSON is shown as it is.
func ToolInput(input json.RawMessage) string {
	trimmed := bytes.TrimSpace(input)
	switch string(trimmed) {
	case "", "null", "{}":
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, trimmed, "", "  ") != nil {
		return string(trimmed)
	}
	return b.String()
}

// USD formats a cost in dollars with cents ("$12.34", "$0.42"), and a
// cost below a cent that is not zero with four decimals ("$0.0016"), so a
// cheap turn never reads as free.
func USD(f float64) string {
	if f != 0 && f > -0.005 && f < 0.005 {
		return fmt.Sprintf("$%.4f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}
