package winetest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentsUnderWine runs the agents package's Windows tests under Wine:
// Stop and the end of a run terminate the agent's job object, so what
// the agent started dies with it, and permission paths keep their drive.
func TestAgentsUnderWine(t *testing.T) {
	e := setup(t)
	exe := filepath.Join(t.TempDir(), "agents.test.exe")
	ctx := context.Background()
	if err := BuildTest(ctx, e.src, "./agents/", exe); err != nil {
		t.Fatal(err)
	}
	out, errOut, code, err := e.wine.Run(ctx, filepath.Dir(exe), exe, "-test.run", "Windows$", "-test.v")
	if err != nil || code != 0 {
		t.Fatalf("agents.test.exe: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	for _, name := range []string{"TestStopEndsTreeWindows", "TestReleaseEndsTreeWindows", "TestSplitRootWindows"} {
		if !strings.Contains(out, "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass under Wine:\n%s", name, out)
		}
	}
}
