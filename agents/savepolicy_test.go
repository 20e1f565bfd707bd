package agents

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// writeCount is the store file's change counter (header offset 24): in
// the rollback-journal mode of AZUREAL's and Lazuli's stores, every write
// transaction that commits adds one.
func writeCount(t testing.TB, st *store.Store) uint32 {
	t.Helper()
	f, err := os.Open(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [4]byte
	if _, err := f.ReadAt(b[:], 24); err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(b[:])
}

// savedTurn is what one turn wrote: the kinds of each batch of the parent
// and of its sub-agents, and the write transactions it cost.
type savedTurn struct {
	parent, subs []string
	writes       uint32
}

// runSaved runs a turn of the fake agent playing lines under save and
// records what it wrote, batch by batch.
func runSaved(t *testing.T, save SaveOptions, lines ...string) savedTurn {
	t.Helper()
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, lines...)
	var got savedTurn
	batch := func(evs []codec.Event) string {
		var ks []string
		for _, e := range evs {
			ks = append(ks, string(e.Kind))
		}
		return strings.Join(ks, " ")
	}
	opts := TurnOptions{Config: cfg, Backend: Claude, Env: env, Save: save,
		OnSaved:    func(saved []codec.Event) { got.parent = append(got.parent, batch(saved)) },
		OnSubagent: func(s SubagentSaved) { got.subs = append(got.subs, batch(s.Saved)) }}
	before := writeCount(t, st)
	if _, err := RunTurn(context.Background(), st, id, "list the files", opts); err != nil {
		t.Fatal(err)
	}
	got.writes = writeCount(t, st) - before
	checkStore(t, st)
	return got
}

// uuidWrites are the transactions of a turn that are not its events:
// last_claude_uuid set when the CLI names its session, cleared at the end.
const uuidWrites = 2

// assertBatches fails unless got holds want, batch by batch.
func assertBatches(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s batches\n got %q\nwant %q", what, got, want)
	}
}

var claudeTurn = []string{claudeInit, claudeText, claudeTool, claudeToolOut, claudeDone, claudeOK}

// TestSaveStepWritesAtEachStep: under SaveStep a transaction ends at each
// reply's text, tool result and the turn's result, whatever the timing: the
// prompt waits for the first step.
func TestSaveStepWritesAtEachStep(t *testing.T) {
	got := runSaved(t, SaveOptions{Policy: SaveStep}, claudeTurn...)
	assertBatches(t, "parent", got.parent, []string{"UserMessage Init AssistantText", "ToolCall ToolResult", "AssistantText", "Complete"})
	if got.writes != 4+uuidWrites {
		t.Fatalf("%d write transactions, want %d", got.writes, 4+uuidWrites)
	}
}

// TestSaveTurnWritesOnceAtTheEnd: under SaveTurn the whole turn, its
// prompt included, is one transaction.
func TestSaveTurnWritesOnceAtTheEnd(t *testing.T) {
	got := runSaved(t, SaveOptions{Policy: SaveTurn}, claudeTurn...)
	assertBatches(t, "parent", got.parent, []string{"UserMessage Init AssistantText ToolCall ToolResult AssistantText Complete"})
	if got.writes != 1+uuidWrites {
		t.Fatalf("%d write transactions, want %d", got.writes, 1+uuidWrites)
	}
}

// TestSaveChunkBufferSizeWritesFullBuffers: under SaveChunk a buffer of
// BufferSize events is written at once; the clock (an hour here) never
// gets a say. The prompt is written as the agent starts, as before.
func TestSaveChunkBufferSizeWritesFullBuffers(t *testing.T) {
	got := runSaved(t, SaveOptions{Policy: SaveChunk, Buffer: time.Hour, BufferSize: 3}, claudeTurn...)
	assertBatches(t, "parent", got.parent, []string{"UserMessage", "Init AssistantText ToolCall", "ToolResult AssistantText Complete"})
	if got.writes != 3+uuidWrites {
		t.Fatalf("%d write transactions, want %d", got.writes, 3+uuidWrites)
	}
}

// TestSaveChunkWritesOnItsClock: under SaveChunk what arrived is written
// while the agent still works, without any step or buffer filling up: the
// agent waits until the test saw its reply saved.
func TestSaveChunkWritesOnItsClock(t *testing.T) {
	st, id := newStore(t)
	gate := t.TempDir() + "/go"
	cfg, env, _ := fakeCLI(t, claudeInit, claudeTool, "#wait-file "+gate, claudeToolOut, claudeOK)
	saved := make(chan []codec.Event, 10)
	opts := TurnOptions{Config: cfg, Env: env, Save: SaveOptions{Buffer: 10 * time.Millisecond},
		OnSaved: func(evs []codec.Event) { saved <- evs }}
	done := make(chan error, 1)
	go func() {
		_, err := RunTurn(context.Background(), st, id, "list", opts)
		done <- err
	}()
	for seen := ""; !strings.Contains(seen, "ToolCall"); {
		select {
		case evs := <-saved:
			for _, e := range evs {
				seen += string(e.Kind) + " "
			}
		case err := <-done:
			t.Fatalf("the turn ended (%v) before the clock wrote the tool call", err)
		}
	}
	if got := strings.Join(kinds(t, st, id), " "); got != "UserMessage Init ToolCall" {
		t.Fatalf("stored while the agent works: %s", got)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkStore(t, st)
}

// TestSavePolicySubagentsFollowIt: a sub-agent's session is written in
// the parent's flushes: under SaveStep at the sub-agent's steps too,
// under SaveTurn once at the end, with the parent.
func TestSavePolicySubagentsFollowIt(t *testing.T) {
	lines := []string{claudeInit, claudeAgentCall, claudeSubPrompt, claudeSubCall, claudeSubResult, claudeAgentDone, claudeOK}
	got := runSaved(t, SaveOptions{Policy: SaveStep}, lines...)
	assertBatches(t, "step parent", got.parent, []string{"UserMessage Init ToolCall", "ToolResult", "Complete"})
	assertBatches(t, "step sub-agent", got.subs, []string{"UserMessage ToolCall ToolResult"})
	if got.writes != 4+uuidWrites {
		t.Fatalf("step: %d write transactions, want %d", got.writes, 4+uuidWrites)
	}
	got = runSaved(t, SaveOptions{Policy: SaveTurn}, lines...)
	assertBatches(t, "turn parent", got.parent, []string{"UserMessage Init ToolCall ToolResult Complete"})
	assertBatches(t, "turn sub-agent", got.subs, []string{"UserMessage ToolCall ToolResult"})
	if got.writes != 2+uuidWrites {
		t.Fatalf("turn: %d write transactions, want %d", got.writes, 2+uuidWrites)
	}
}

// TestSaveOptionsRefusesUnknownPolicy: a policy that does not exist is
// refused before anything is written.
func TestSaveOptionsRefusesUnknownPolicy(t *testing.T) {
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeTurn...)
	before := writeCount(t, st)
	for _, save := range []SaveOptions{{Policy: "message"}, {BufferSize: -1}} {
		_, err := RunTurn(context.Background(), st, id, "x", TurnOptions{Config: cfg, Env: env, Save: save})
		if !errors.Is(err, ErrSavePolicy) {
			t.Fatalf("%+v: err = %v, want ErrSavePolicy", save, err)
		}
	}
	if writeCount(t, st) != before {
		t.Fatal("a refused policy wrote to the store")
	}
	for _, s := range []string{"", "chunk", " Step ", "TURN"} {
		if _, err := ParseSavePolicy(s); err != nil {
			t.Errorf("ParseSavePolicy(%q): %v", s, err)
		}
	}
}

// TestRunWorkflowTakesTheSavePolicy: the run workflow's turns follow
// RunOptions.Turn.Save (the prompt box and `lazuli run` set it), and a
// policy that does not exist creates no session.
func TestRunWorkflowTakesTheSavePolicy(t *testing.T) {
	versionScript(t)
	st, _ := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeTurn...)
	var batches int
	opts := RunOptions{Worktree: "main", Turn: TurnOptions{Config: cfg, Env: env, Save: SaveOptions{Policy: SaveTurn}},
		OnEvent: func(ev RunEvent) {
			if ev.Kind == RunSaved {
				batches++
			}
		}}
	if _, err := RunWorkflow(context.Background(), st, 0, "hello", opts); err != nil {
		t.Fatal(err)
	}
	if batches != 1 {
		t.Fatalf("%d batches saved under SaveTurn, want 1", batches)
	}
	before := writeCount(t, st)
	opts.Turn.Save.Policy = "never"
	if _, err := RunWorkflow(context.Background(), st, 0, "hello", opts); !errors.Is(err, ErrSavePolicy) {
		t.Fatalf("err = %v, want ErrSavePolicy", err)
	}
	if writeCount(t, st) != before {
		t.Fatal("a refused policy wrote to the store")
	}
}
