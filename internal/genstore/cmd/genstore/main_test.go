package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.azs")
	args := []string{"-o", path, "-sessions", "3", "-events", "60", "-big", "0", "-seed", "2"}

	t.Run("OK", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if err := run(args, &out, &errOut); err != nil {
			t.Fatalf("run: %v (%s)", err, errOut.String())
		}
		for _, want := range []string{"sessions     3", "events       60", "options      -sessions 3 -events 60 -big 0 -seed 2"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
		if !strings.Contains(errOut.String(), "60/60 events") {
			t.Errorf("no progress on stderr: %q", errOut.String())
		}
	})
	t.Run("ErrExists", func(t *testing.T) {
		before, _ := os.ReadFile(path)
		err := run(append(args, "-q"), &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "-force") {
			t.Fatalf("run over an existing store = %v", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Error("the existing store changed")
		}
	})
	t.Run("Force", func(t *testing.T) {
		if err := run(append(args, "-q", "-force"), &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrUsage", func(t *testing.T) {
		for _, bad := range [][]string{{}, {"-o"}, {"-o", path, "extra"}, {"-sessions", "x", "-o", path}} {
			if err := run(bad, &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, errUsage) {
				t.Errorf("run(%q) = %v, want a usage error", bad, err)
			}
		}
	})
}
