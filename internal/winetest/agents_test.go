package winetest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackagesUnderWine runs the Windows tests (named …Windows) of the
// packages with Windows code under Wine: agents (Stop and the end of a run
// terminate the agent's job object, so what the agent started dies with
// it; permission paths keep their drive) and permprompt (which brokers'
// processes are gone). Each named test must pass, not just be absent.
func TestPackagesUnderWine(t *testing.T) {
	e := setup(t)
	for _, p := range []struct {
		pkg   string
		tests []string
	}{
		{"./agents/", []string{"TestStopEndsTreeWindows", "TestReleaseEndsTreeWindows", "TestSplitRootWindows"}},
		{"./permprompt/", []string{"TestProcessAliveWindows"}},
	} {
		exe := filepath.Join(t.TempDir(), filepath.Base(p.pkg)+".test.exe")
		ctx := context.Background()
		if err := BuildTest(ctx, e.src, p.pkg, exe); err != nil {
			t.Fatal(err)
		}
		out, errOut, code, err := e.wine.Run(ctx, filepath.Dir(exe), exe, "-test.run", "Windows$", "-test.v")
		if err != nil || code != 0 {
			t.Errorf("%s under Wine: exit %d, %v\n%s%s", filepath.Base(exe), code, err, out, errOut)
			continue
		}
		for _, name := range p.tests {
			if !strings.Contains(out, "--- PASS: "+name+" ") {
				t.Errorf("%s did not pass under Wine:\n%s", name, out)
			}
		}
	}
}
