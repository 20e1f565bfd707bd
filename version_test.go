package main

import (
	"bytes"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	var b bytes.Buffer
	if !printVersion([]string{"--version"}, &b) {
		t.Fatal("--version not recognised")
	}
	got := b.String()
	if !regexp.MustCompile(`^Lazuli \d+\.\d+\.\d+ \(build \d+\)\n`).MatchString(got) || !strings.Contains(got, runtime.Version()) || !strings.Contains(got, "commit ") {
		t.Errorf("--version printed %q", got)
	}
	if v := tomlDetail(fyneApp, "Version"); v == "" || !strings.Contains(got, " "+v+" ") {
		t.Errorf("version %q not in %q", v, got)
	}
	for _, args := range [][]string{nil, {"--demo"}, {"--version", "x"}, {"version"}} {
		if printVersion(args, &b) {
			t.Errorf("printVersion(%q) = true", args)
		}
	}
}
