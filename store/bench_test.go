package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/cputime"
	"github.com/lazuli-app/lazuli/store/listcache"
)

var benchListEvents = flag.Int("store.listevents", 300_000,
	"total events in BenchmarkListSessions2000's store (use 1000000 for the 1M target)")

// benchWords is the vocabulary of generated text.
var benchWords = strings.Fields(`the a parser function returns error value context store session event
	index query table column row file path test build run check update token stream write read open close
	struct field method interface slice map channel goroutine mutex buffer offset length range loop`)

// benchGen generates a realistic, deterministic mix of agent events.
type benchGen struct {
	r    *rand.Rand
	tool int
}

func newBenchGen(seed uint64) *benchGen { return &benchGen{r: rand.New(rand.NewPCG(seed, 7))} }

func (g *benchGen) words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[g.r.IntN(len(benchWords))])
	}
	return b.String()
}

// lines returns n lines of code-like text.
func (g *benchGen) lines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%4d\t%s(%d)\n", i+1, g.words(4+g.r.IntN(6)), g.r.IntN(1000))
	}
	return b.String()
}

// markdown is an assistant reply of a few hundred bytes.
func (g *benchGen) markdown() string {
	return "## " + g.words(4) + "\n\n" + g.words(30+g.r.IntN(40)) + "\n\n- `" + g.words(2) + "`\n- " + g.words(8)
}

// toolPair is a tool call with its result (a few KB before compaction).
func (g *benchGen) toolPair() (codec.Event, codec.Event) {
	g.tool++
	id := fmt.Sprintf("toolu_%08d", g.tool)
	path := fmt.Sprintf("/home/dev/proj/src/%s_%d.go", benchWords[g.r.IntN(len(benchWords))], g.r.IntN(50))
	mk := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	switch g.r.IntN(4) {
	case 0:
		return codec.ToolCall(id, "Read", &path, mk(map[string]any{"file_path": path, "offset": 1, "limit": 200})),
			codec.ToolResult(id, "Read", &path, g.lines(40+g.r.IntN(80)), false)
	case 1:
		cmd := "go test ./" + g.words(1) + "/..."
		return codec.ToolCall(id, "Bash", nil, mk(map[string]any{"command": cmd, "description": g.words(5)})),
			codec.ToolResult(id, "Bash", nil, g.lines(30+g.r.IntN(40)), g.r.IntN(10) == 0)
	case 2:
		return codec.ToolCall(id, "Edit", &path, mk(map[string]any{"file_path": path,
				"old_string": g.lines(4 + g.r.IntN(8)), "new_string": g.lines(4 + g.r.IntN(10))})),
			codec.ToolResult(id, "Edit", &path, "The file "+path+" has been updated.\n"+g.lines(8), false)
	}
	return codec.ToolCall(id, "Grep", nil, mk(map[string]any{"pattern": "func " + g.words(1), "path": "src"})),
		codec.ToolResult(id, "Grep", nil, g.lines(20+g.r.IntN(30)), false)
}

// turn returns one prompt-to-Complete turn of about ten events.
func (g *benchGen) turn() []codec.Event {
	evs := []codec.Event{codec.UserMessage(g.words(15 + g.r.IntN(40))), codec.AssistantText(g.markdown())}
	for range 3 {
		call, result := g.toolPair()
		evs = append(evs, call, result)
	}
	return append(evs, codec.AssistantText(g.markdown()), codec.Complete(true, uint64(1000+g.r.IntN(90000)), g.r.Float64()))
}

// events returns at least n events made of whole turns, cut to n.
func (g *benchGen) events(n int) []codec.Event {
	evs := make([]codec.Event, 0, n+10)
	for len(evs) < n {
		evs = append(evs, g.turn()...)
	}
	return evs[:n]
}

// BenchmarkAppendEvents appends batches of 5,000 realistic events (user
// prompts, markdown replies, Read/Bash/Edit/Grep calls with results of a few
// KB) to one session, one transaction per batch. full is Events().Append;
// insert is only its transaction, with the events already compacted,
// encoded and compressed (the part of the cost that is not the codec's).
func BenchmarkAppendEvents(b *testing.B) {
	const batch = 5000
	s := mustOpen(b)
	sess := mustCreateSession(b, s, "main", "")
	evs := newBenchGen(1).events(batch)
	ctx := context.Background()
	run := func(b *testing.B, appendBatch func() error) {
		b.ReportAllocs()
		start, cpu := time.Now(), cputime.Process()
		for b.Loop() {
			if err := appendBatch(); err != nil {
				b.Fatal(err)
			}
		}
		events := float64(batch * b.N)
		b.ReportMetric(events/time.Since(start).Seconds(), "events/s")
		reportCPU(b, cpu, events, "cpu-µs/event")
	}
	b.Run("full", func(b *testing.B) {
		run(b, func() error { _, err := s.Events().Append(ctx, sess.ID, evs); return err })
	})
	b.Run("insert", func(b *testing.B) {
		encoded := encodeAll(b, s, evs)
		run(b, func() error {
			return s.writeTx(ctx, false, func(tx *sql.Tx) error {
				_, err := insertEvents(ctx, tx, sess.ID, preEncoded(encoded))
				return err
			})
		})
	})
}

// encodeAll encodes events as Events().Append does, waiting for every chunk.
func encodeAll(b *testing.B, s *Store, events []codec.Event) []encodedRow {
	batch := s.encodeAsync(events)
	defer batch.finish()
	for k := range batch.chunks {
		if _, err := batch.chunk(k); err != nil {
			b.Fatal(err)
		}
	}
	return batch.rows
}

// reportCPU reports the process CPU time used since cpu0 per unit: on a
// shared machine, wall-clock rates depend on the load, this does not.
func reportCPU(b *testing.B, cpu0 time.Duration, units float64, name string) {
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/units, name)
	}
}

// BenchmarkLoadSession50K loads (decodes and filters) a 50,000-event
// session. cold is the first load after Open: each load runs on a Store
// opened anew, outside the timer and the figures, so SQLite's page cache
// and the decoded-row cache start empty (the file stays in the OS's
// cache). warm is a repeated load on one Store, served from its
// decoded-row cache after an index-only check: no row is decoded. tail is
// a first load (new Store, as cold) of the last 1,000 rows only
// (Events().Range), what a view that shows the newest rows first would
// wait for.
func BenchmarkLoadSession50K(b *testing.B) {
	const events, tail = 50_000, 1000
	s := mustOpen(b)
	sess := mustCreateSession(b, s, "main", "")
	mustAppend(b, s, sess.ID, newBenchGen(2).events(events)...)
	ctx := context.Background()
	run := func(b *testing.B, reopen bool, from int64, want int) {
		b.ReportAllocs()
		st := s
		defer func() {
			if st != s {
				st.Close()
			}
		}()
		var wall, cpu time.Duration
		for b.Loop() {
			if reopen {
				b.StopTimer()
				if st != s {
					st.Close()
				}
				var err error
				if st, err = Open(ctx, s.Path()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			start, cpu0 := time.Now(), cputime.Process()
			evs, err := st.Events().Range(ctx, sess.ID, from, 0)
			wall, cpu = wall+time.Since(start), cpu+cputime.Process()-cpu0
			if err != nil || len(evs) != want {
				b.Fatalf("LoadEventsRange = %d events, %v", len(evs), err)
			}
		}
		b.ReportMetric(float64(wall.Microseconds())/1000/float64(b.N), "ms/load")
		if cpu > 0 {
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/load")
		}
	}
	b.Run("cold", func(b *testing.B) { run(b, true, 0, events) })
	b.Run("warm", func(b *testing.B) { run(b, false, 0, events) })
	b.Run("tail", func(b *testing.B) { run(b, true, events-tail+1, tail) })
}

// BenchmarkListSessions2000 lists 2,000 sessions holding -store.listevents
// events in all. warm is the steady state (counts cached and refreshed
// incrementally). The others open the store anew each time (Open's header
// and schema checks) and list once, as a user who starts the app sees it:
// cold-nocache is the first list ever (no cache file: a full count of the
// events table, and the cache file written); cold starts from the cache
// file of an unchanged store; cold-stale from one that is 500 rows behind
// (appended by another program since), which a refresh folds in.
func BenchmarkListSessions2000(b *testing.B) {
	const sessions = 2000
	b.Setenv(CacheDirEnv, b.TempDir())
	s := mustOpen(b)
	buildListStore(b, s, sessions, *benchListEvents)
	ctx := context.Background()
	run := func(b *testing.B, list func() ([]Session, int, error), wantCounts int) {
		b.ReportAllocs()
		start, cpu := time.Now(), cputime.Process()
		for b.Loop() {
			got, counted, err := list()
			if err != nil || len(got) != sessions || counted != wantCounts {
				b.Fatalf("ListSessions = %d sessions (%d full counts), %v", len(got), counted, err)
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/list")
		reportCPU(b, cpu, float64(b.N)*1000, "cpu-ms/list")
	}
	b.Run("warm", func(b *testing.B) {
		if _, err := s.Sessions().List(ctx, ""); err != nil { // prime the cache
			b.Fatal(err)
		}
		run(b, func() ([]Session, int, error) {
			list, err := s.Sessions().List(ctx, "")
			return list, 0, err
		}, 0)
	})
	openAndList := func() ([]Session, int, error) {
		fresh, err := Open(ctx, s.Path())
		if err != nil {
			return nil, 0, err
		}
		list, err := fresh.Sessions().List(ctx, "")
		if cerr := fresh.Close(); err == nil { // Close waits for the cache file
			err = cerr
		}
		return list, fresh.list.Counted(), err
	}
	b.Run("cold-nocache", func(b *testing.B) {
		run(b, func() ([]Session, int, error) {
			if err := os.Remove(s.list.CacheFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, 0, err
			}
			return openAndList()
		}, 1)
	})
	b.Run("cold", func(b *testing.B) {
		if _, _, err := openAndList(); err != nil { // the cache file
			b.Fatal(err)
		}
		run(b, openAndList, 0)
	})
	b.Run("cold-stale", func(b *testing.B) {
		if _, _, err := openAndList(); err != nil {
			b.Fatal(err)
		}
		mustAppend(b, s, 1, newBenchGen(4).events(listcache.SaveRows/2)...) // too few to be saved
		run(b, openAndList, 0)
	})
}

// buildListStore fills s with n sessions and total events, spread unevenly,
// in one transaction: a pool of events is encoded once and its rows are
// inserted with the same code Events().Append uses.
func buildListStore(b *testing.B, s *Store, n, total int) {
	b.Helper()
	g := newBenchGen(3)
	pool := encodeAll(b, s, g.events(20_000))
	mustCreateSession(b, s, "main", "") // creates the file
	ctx := context.Background()
	err := s.writeTx(ctx, false, func(tx *sql.Tx) error {
		for i := range n {
			id := int64(i + 1)
			if i > 0 {
				if _, err := tx.ExecContext(ctx, "INSERT INTO sessions(worktree) VALUES (?)", []string{"main", "feature"}[i%2]); err != nil {
					return err
				}
			}
			k := total / n
			if i%10 == 0 {
				k = k * 3 / 2
			} else if i%10 == 1 {
				k = k / 2
			}
			off := g.r.IntN(len(pool) - k)
			if _, err := insertEvents(ctx, tx, id, preEncoded(pool[off:off+k])); err != nil {
				return err
			}
			if i%7 == 0 {
				_, err := tx.ExecContext(ctx, "INSERT INTO compactions(session_id, after_seq, summary) VALUES (?, ?, ?)", id, k/2, "summary")
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// preEncoded wraps rows that are already encoded as a finished batch.
func preEncoded(rows []encodedRow) *encodedBatch {
	b := &encodedBatch{rows: rows, chunks: max(1, (len(rows)+encodeChunk-1)/encodeChunk)}
	b.done, b.errs = make([]chan struct{}, b.chunks), make([]error, b.chunks)
	for k := range b.done {
		b.done[k] = make(chan struct{})
		close(b.done[k])
	}
	return b
}

// BenchmarkDecodeEvents decodes the payloads of 50,000 benchmark events
// (zstd, the UTF-8 check and the JSON decoder a load uses) one after
// another on one goroutine, without SQLite: the codec's share of a cold
// load, and what the choice of zstd literals (codec.go) changes.
func BenchmarkDecodeEvents(b *testing.B) {
	const events = 50_000
	s := mustOpen(b)
	var data [][]byte
	var size int
	for _, e := range newBenchGen(2).events(events) {
		row, err := encodeEvent(s.codec, e, false) // the event row only: decoding never reads full text
		if err != nil {
			b.Fatal(err)
		}
		if !row.skip {
			data, size = append(data, row.data), size+len(row.data)
		}
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	start, cpu := time.Now(), cputime.Process()
	for b.Loop() {
		var out codec.Arena
		for _, d := range data {
			if _, ok := s.decodePayloadInto(d, &out); !ok {
				b.Fatal("a benchmark payload did not decode")
			}
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/50k")
	reportCPU(b, cpu, float64(b.N)*1000, "cpu-ms/50k")
}
