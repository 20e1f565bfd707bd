package agents

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// benchSteps is the number of model steps of the benchmark's turn: each a
// reply, a tool call and its result, so that with the init line the fake
// agent prints 10,000 events, then its result.
const benchSteps = 3333

// benchStream writes the scripted stream of the benchmark to a file of
// dir and returns its path.
func benchStream(b *testing.B, dir string) string {
	b.Helper()
	var sb strings.Builder
	sb.WriteString(claudeInit + "\n")
	for i := range benchSteps {
		fmt.Fprintf(&sb, `{"type":"assistant","message":{"id":"msg_%d","content":[{"type":"text","text":"Step %d: I will look at the package's files and run its tests."}]}}`+"\n", i, i)
		fmt.Fprintf(&sb, `{"type":"assistant","message":{"id":"msg_%d","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./pkg%d/..."}}]}}`+"\n", i, i, i)
		fmt.Fprintf(&sb, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"ok  \tpkg%d\t0.%03ds\n--- PASS: TestThing (0.00s)"}]}}`+"\n", i, i, i%1000)
	}
	sb.WriteString(claudeOK + "\n")
	p := filepath.Join(dir, "stream.jsonl")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSavePolicy runs a turn whose agent prints a 10,000-event
// scripted stream as fast as it can, under each save policy, and reports
// the write transactions the turn cost (write-tx/op, the store file's
// change counter: the turn's event batches plus last_claude_uuid set and
// cleared) and the events stored per second of the whole turn, the
// agent's start and end included (events/s).
func BenchmarkSavePolicy(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	script := benchStream(b, b.TempDir())
	env := append(os.Environ(), "LAZULI_FAKE_SCRIPT="+script, "LAZULI_CLAUDE=", "LAZULI_CODEX=")
	cfg := Config{Paths: map[Backend]string{Claude: exe}, Getenv: func(string) string { return "" }}
	for _, c := range []struct {
		name string
		save SaveOptions
	}{
		{"chunk", SaveOptions{Policy: SaveChunk}},
		{"chunk-size64", SaveOptions{Policy: SaveChunk, BufferSize: 64}},
		{"step", SaveOptions{Policy: SaveStep}},
		{"turn", SaveOptions{Policy: SaveTurn}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var writes uint32
			var events int
			var elapsed time.Duration
			for range b.N {
				b.StopTimer()
				st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), ".azureal", "sessions.azs"))
				if err != nil {
					b.Fatal(err)
				}
				s, err := st.Sessions().Create(context.Background(), "main", "")
				if err != nil {
					b.Fatal(err)
				}
				before := writeCount(b, st)
				b.StartTimer()
				start := time.Now()
				res, err := RunTurn(context.Background(), st, s.ID, "run the tests", TurnOptions{Config: cfg, Backend: Claude, Env: env, Save: c.save,
					Threshold: math.MaxInt64}) // the whole stream, no stop for compaction
				elapsed += time.Since(start)
				b.StopTimer()
				if err != nil || !res.Success() {
					b.Fatalf("turn: %+v, %v", res, err)
				}
				writes += writeCount(b, st) - before
				events += res.EventsSaved
				st.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(writes)/float64(b.N), "write-tx/op")
			b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}
