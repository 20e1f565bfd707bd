package teamsync

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// The kill test runs pushes in child processes (this test binary, with
// childEnv set) that SIGKILL themselves at the Nth interruption point of
// the push: before and after each batch's COPY, every ten rows inside a
// COPY, after each commit.
const (
	childEnv   = "LAZULI_TEAMSYNC_CHILD"
	childURL   = "LAZULI_TEAMSYNC_URL"
	childStore = "LAZULI_TEAMSYNC_STORE"
	childKill  = "LAZULI_TEAMSYNC_KILL_AT"
	childBatch = "LAZULI_TEAMSYNC_BATCH"
	// childInsight set to 1 makes the child's push bring the store's
	// insight index up to date and send it (IndexInsight).
	childInsight = "LAZULI_TEAMSYNC_INSIGHT"
)

func childMain() int {
	ctx := context.Background()
	killAt, _ := strconv.Atoi(os.Getenv(childKill))
	batch, _ := strconv.Atoi(os.Getenv(childBatch))
	st, err := store.Open(ctx, os.Getenv(childStore))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	db, err := Connect(ctx, os.Getenv(childURL))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	n := 0
	o := opts("child")
	o.BatchRows = batch
	if os.Getenv(childInsight) == "1" {
		o.Insight = IndexInsight{}
	}
	o.Hook = func(string) error {
		if n++; n == killAt {
			if self, err := os.FindProcess(os.Getpid()); err == nil {
				_ = self.Kill() // SIGKILL (TerminateProcess on Windows)
			}
			select {} // the signal is on its way
		}
		return nil
	}
	if _, err := Push(ctx, db, st, o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// runChild pushes path in a child process killed at its killAt-th
// interruption point; it reports whether the child was killed.
func runChild(t *testing.T, url, path string, killAt, batch int) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", childURL+"="+url, childStore+"="+path,
		childKill+"="+strconv.Itoa(killAt), childBatch+"="+strconv.Itoa(batch))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	if err != nil {
		t.Fatalf("push child: %v\n%s", err, out)
	}
	return false
}

// grow appends work to a store between pushes: events to an existing
// session, now and then a new session, a compaction or a rename.
func grow(t *testing.T, st *store.Store, r *rand.Rand, round int) {
	t.Helper()
	ctx := context.Background()
	list, err := st.Scan().Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := list[r.IntN(len(list))]
	var evs []codec.Event
	for i := range 20 + r.IntN(60) {
		switch i % 3 {
		case 0:
			evs = append(evs, codec.UserMessage(fmt.Sprintf("round %d prompt %d", round, i)))
		case 1:
			evs = append(evs, codec.AssistantText(fmt.Sprintf("round %d answer %d with token ghp_%036d", round, i, round*1000+i)))
		default:
			evs = append(evs, codec.ToolResult("t", "Bash", nil, fmt.Sprintf("ok %d", i), false))
		}
	}
	if r.IntN(4) == 0 {
		if _, _, err := st.Sessions().CreateWithEvents(ctx, "wt", fmt.Sprintf("new %d", round), evs); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := st.Events().Append(ctx, s.ID, evs); err != nil {
		t.Fatal(err)
	}
	if r.IntN(3) == 0 {
		if _, err := st.Compactions().Add(ctx, s.ID, 1, fmt.Sprintf("summary %d", round)); err != nil {
			t.Fatal(err)
		}
	}
	if r.IntN(3) == 0 {
		if err := st.Sessions().Rename(ctx, s.ID, fmt.Sprintf("renamed %d", round)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPushKilledAnywhere kills pushes with SIGKILL at pseudo-random points
// (at least 50 kills), each followed by a complete push: the database then
// holds exactly the store's rows, nothing lost and nothing doubled.
func TestPushKilledAnywhere(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	path := genStore(t, t.TempDir(), 6, 600, 2)
	st := openStore(t, path)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(22, 1))
	const batch = 40
	kills := 0
	for round := 0; kills < 50; round++ {
		if round > 120 {
			t.Fatalf("only %d kills in %d rounds", kills, round)
		}
		grow(t, st, r, round)
		if runChild(t, url, path, 1+r.IntN(25), batch) {
			kills++
		}
		if round%2 == 0 { // sometimes a second kill before the complete push
			if runChild(t, url, path, 1+r.IntN(25), batch) {
				kills++
			}
		}
		o := opts("child")
		o.BatchRows = batch
		rep, err := Push(ctx, db, st, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Forked {
			t.Fatalf("round %d: a killed push made the store look forked", round)
		}
		if got, want := dbCounts(t, db, rep.StoreID), localCounts(t, st); got != want {
			t.Fatalf("round %d (%d kills): database %+v, store %+v", round, kills, got, want)
		}
	}
	t.Logf("%d kills", kills)
}
