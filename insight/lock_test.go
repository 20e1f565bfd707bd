package insight

import (
	"os"
	"os/exec"
	"reflect"
	"sync"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// TestConcurrentUpdatesProcesses: many processes bring one store's index
// up to date at once (as concurrent `lazuli sync push` of the store do,
// issue 28): none fails, with "database is locked" or anything else, and
// the index then holds exactly what a fresh build holds, every event and
// usage row counted once.
func TestConcurrentUpdatesProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	st := mustOpenStore(t)
	fill(t, st, 6, 40)
	cache := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const helpers = 8
	var wg sync.WaitGroup
	outs, errs := make([][]byte, helpers), make([]error, helpers)
	for i := range helpers {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+st.Path(), store.CacheDirEnv+"="+cache)
		wg.Go(func() { outs[i], errs[i] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("helper %d: %v\n%s", i, err, outs[i])
		}
	}
	t.Setenv(store.CacheDirEnv, cache)
	got := dump(t, mustIndex(t, st))
	if want := fresh(t, st); !reflect.DeepEqual(got, want) {
		t.Errorf("after %d concurrent updates: %d rows, fresh %d", helpers, len(got), len(want))
	}
}
