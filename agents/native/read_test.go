package native

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

// nativeFixtures lists the shared B_ and D_ transcripts, skipping when the
// shared folder is absent.
func nativeFixtures(tb testing.TB) []string {
	tb.Helper()
	dir := filepath.Join(fixtures.Dir(tb), "transcripts")
	var out []string
	for _, p := range []string{"B_*.jsonl", "D_*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(dir, p))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		tb.Fatalf("no B_ or D_ fixtures in %s", dir)
	}
	return out
}

// nativeOf is a Session for a file of a format.
func nativeOf(path string) Session {
	agent := Claude
	if strings.HasPrefix(filepath.Base(path), "D_") || strings.Contains(filepath.Base(path), "rollout") {
		agent = Codex
	}
	return Session{Agent: agent, ID: "x", Path: path}
}

// eventsJSON encodes events for comparison.
func eventsJSON(tb testing.TB, evs []codec.Event) []string {
	tb.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		b, err := codec.EncodeEventJSON(e)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// record is the record an import of r from path would write.
func record(path string, r nativeRead) *store.NativeImport {
	return &store.NativeImport{Path: path, Bytes: r.bytes, Lines: r.lines, Checksum: r.checksum}
}

func mustReadNative(tb testing.TB, n Session, prev *store.NativeImport) nativeRead {
	tb.Helper()
	return mustReadNativeFrom(tb, n, prev, nil)
}

// mustReadNativeFrom reads n after prev, going on from resume when it can.
func mustReadNativeFrom(tb testing.TB, n Session, prev *store.NativeImport, resume []byte) nativeRead {
	tb.Helper()
	r, err := readNative(context.Background(), n, prev, resume, parse.Options{ClaudeHome: os.DevNull})
	if err != nil {
		tb.Fatalf("readNative(%s) = %v", filepath.Base(n.Path), err)
	}
	return r
}

// TestReadNativeIncremental: importing a prefix of a real transcript and
// then the rest stores the same events as importing it whole, for every B
// and D fixture cut at several lines. Two exceptions are allowed (see
// firstEventDiff): Codex's first Init names the model "codex" when the
// prefix ends before the first turn_context, as the whole file would if it
// ended there; and a Claude prompt replaced by a rewind after its import
// stays (B_claude-code-log_03eb5929 rewinds at line 38 to the parent of
// the prompt on line 18).
func TestReadNativeIncremental(t *testing.T) {
	for _, path := range nativeFixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			whole := mustReadNative(t, nativeOf(path), nil)
			want := eventsJSON(t, whole.events)
			ends := lineEnds(data)
			cuts := []int{1, 2, len(ends) / 3, len(ends) / 2, len(ends) - 1}
			if k := lineAfter(data, ends, `"tool_use"`); k > 0 {
				cuts = append(cuts, k) // a result after the cut names a call before it
			}
			for _, k := range cuts {
				if k <= 0 || k >= len(ends) {
					continue
				}
				cut := filepath.Join(t.TempDir(), filepath.Base(path))
				writeFile(t, cut, data[:ends[k-1]])
				n := nativeOf(cut)
				first := mustReadNative(t, n, nil)
				writeFile(t, cut, data)
				rest := mustReadNative(t, n, record(cut, first))
				got := eventsJSON(t, append(first.events, rest.events...))
				if first.lines != int64(k) || rest.bytes != int64(len(data)) || rest.lines != int64(len(ends)) {
					t.Errorf("cut at line %d: read %d lines, then to byte %d of %d, %d lines", k, first.lines, rest.bytes, len(data), rest.lines)
				}
				if d := firstEventDiff(got, want, n.Agent == Codex); d != "" {
					t.Errorf("cut at line %d of %d: %s", k, len(ends), d)
				}
				checkTailRead(t, n, first, rest, k)
			}
		})
	}
}

// checkTailRead checks that reading only the lines after first, going on
// from its resume, gives what reading the whole file again (rest) gives:
// the same events, usage, end, line count, checksum and resume. A Codex
// rollout keeps no resume: it is read whole.
func checkTailRead(t *testing.T, n Session, first, rest nativeRead, k int) {
	t.Helper()
	if n.Agent == Codex {
		if first.resume != nil {
			t.Errorf("cut at line %d: a Codex read kept a resume", k)
		}
		return
	}
	if first.resume == nil {
		t.Fatalf("cut at line %d: a Claude read kept no resume", k)
	}
	tail := mustReadNativeFrom(t, n, record(n.Path, first), first.resume)
	if !tail.tail || rest.tail {
		t.Fatalf("cut at line %d: tail read %v, whole read %v; want true, false", k, tail.tail, rest.tail)
	}
	if got, want := eventsJSON(t, tail.events), eventsJSON(t, rest.events); !slices.Equal(got, want) {
		t.Errorf("cut at line %d: tail events\n%q\nwant (read whole)\n%q", k, got, want)
	}
	if !reflect.DeepEqual(tail.usage, rest.usage) {
		t.Errorf("cut at line %d: tail usage %+v, want (read whole) %+v", k, tail.usage, rest.usage)
	}
	if tail.bytes != rest.bytes || tail.lines != rest.lines || tail.checksum != rest.checksum {
		t.Errorf("cut at line %d: tail read to %d, %d lines, %s; want %d, %d, %s", k, tail.bytes, tail.lines, tail.checksum, rest.bytes, rest.lines, rest.checksum)
	}
	gs, _ := decodeResume(tail.resume)
	ws, _ := decodeResume(rest.resume)
	if !reflect.DeepEqual(gs, ws) {
		t.Errorf("cut at line %d: the tail read's resume differs from the whole read's", k)
	}
}

// lineAfter is the number of lines up to and including the first one
// that holds s after the middle of data; 0 when none does.
func lineAfter(data []byte, ends []int, s string) int {
	start := 0
	for k, end := range ends {
		if k >= len(ends)/2 && bytes.Contains(data[start:end], []byte(s)) {
			return k + 1
		}
		start = end
	}
	return 0
}

// lineEnds returns the offset after each newline of data.
func lineEnds(data []byte) []int {
	var ends []int
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	return ends
}

// firstEventDiff describes the first difference between event lists, where
// an Init's model may differ when codex is set, and for Claude got may hold
// extra prompts: a prompt that was imported and later replaced by a rewind
// (a later prompt with the same parentUuid) stays in the session.
func firstEventDiff(got, want []string, codex bool) string {
	i, j := 0, 0
	for ; i < len(got) && j < len(want); i, j = i+1, j+1 {
		switch {
		case got[i] == want[j]:
		case codex && strings.HasPrefix(got[i], `{"Init"`) && sameInitCwd(got[i], want[j]):
		case !codex && strings.HasPrefix(got[i], `{"UserMessage"`):
			j-- // a replaced prompt kept
		default:
			return "event " + itoa(i) + ":\n  got  " + clip(got[i]) + "\n  want " + clip(want[j])
		}
	}
	if i != len(got) || j != len(want) {
		return "got " + itoa(len(got)) + " events, want " + itoa(len(want))
	}
	return ""
}

func sameInitCwd(a, b string) bool {
	var x, y struct{ Init struct{ Cwd string } }
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && x.Init.Cwd == y.Init.Cwd
}

func itoa(n int) string { return strconv.Itoa(n) }

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Small transcripts for the tests that must run without the shared
// fixtures.
const (
	claudeLine1 = `{"type":"user","message":{"role":"user","content":"fix the build"},"uuid":"u1","parentUuid":null,"sessionId":"s1","cwd":"/w/proj","gitBranch":"feature/x","timestamp":"2025-06-01T10:00:00.000Z"}`
	claudeLine2 = `{"type":"assistant","message":{"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]},"uuid":"a1","parentUuid":"u1","sessionId":"s1","cwd":"/w/proj","timestamp":"2025-06-01T10:00:05.000Z"}`
	claudeLine3 = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"uuid":"u2","parentUuid":"a1","sessionId":"s1","cwd":"/w/proj","timestamp":"2025-06-01T10:00:09.000Z"}`
	claudeLine4 = `{"type":"assistant","message":{"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"The build passes."}]},"uuid":"a2","parentUuid":"u2","sessionId":"s1","cwd":"/w/proj","timestamp":"2025-06-01T10:00:10.000Z"}`
	claudeLine5 = `{"type":"user","message":{"role":"user","content":"now the tests"},"uuid":"u3","parentUuid":"a2","sessionId":"s1","cwd":"/w/proj","timestamp":"2025-06-01T10:01:00.000Z"}`
)

// readModes are the two ways a later import reads a grown file: from its
// start again, or only after the record's end, going on from the resume
// the first read kept.
var readModes = []struct {
	name   string
	resume func(first nativeRead) []byte
}{
	{"Whole", func(nativeRead) []byte { return nil }},
	{"Tail", func(first nativeRead) []byte { return first.resume }},
}

func TestReadNativeAppendAndPartialLine(t *testing.T) {
	for _, mode := range readModes {
		t.Run(mode.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s1.jsonl")
			n := Session{Agent: Claude, ID: "s1", Path: path}
			writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"+claudeLine3[:40]))
			first := mustReadNative(t, n, nil)
			if first.lines != 2 || first.bytes != int64(len(claudeLine1)+len(claudeLine2)+2) {
				t.Fatalf("first read: %d lines, %d bytes; want the 2 complete lines", first.lines, first.bytes)
			}
			if kinds := eventKinds(first.events); kinds != "UserMessage ToolCall" {
				t.Errorf("first read: %s", kinds)
			}
			// The half-written line is completed, and another follows.
			writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"+claudeLine3+"\n"+claudeLine4+"\n"))
			resume := mode.resume(first)
			rest := mustReadNativeFrom(t, n, record(path, first), resume)
			if rest.tail != (resume != nil) {
				t.Errorf("second read: tail = %v with resume %v", rest.tail, resume != nil)
			}
			if kinds := eventKinds(rest.events); kinds != "ToolResult AssistantText" {
				t.Errorf("second read: %s", kinds)
			}
			if rest.events[0].ToolName != "Bash" {
				t.Errorf("the result lost its call's tool name: %+v", rest.events[0])
			}
			if rest.lines != 4 || rest.bytes != int64(len(claudeLine1)+len(claudeLine2)+len(claudeLine3)+len(claudeLine4)+4) {
				t.Errorf("second read: to %d lines, byte %d; want all 4", rest.lines, rest.bytes)
			}

			t.Run("Changed", func(t *testing.T) {
				rec := record(path, rest)
				resume := mode.resume(rest)
				writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n")) // truncated
				if _, err := readNative(context.Background(), n, rec, resume, parse.Options{}); !errors.Is(err, errNativeChanged) {
					t.Errorf("truncated: %v, want errNativeChanged", err)
				}
				if st := n.State(map[store.NativeKey]store.NativeImport{n.Key(): *rec}); st != StateChanged {
					t.Errorf("State(truncated) = %s", st)
				}
				whole := []byte(claudeLine1 + "\n" + claudeLine2 + "\n" + claudeLine3 + "\n" + claudeLine4 + "\n" + claudeLine5 + "\n")
				for _, c := range []struct{ name, old, new string }{
					{"RewrittenHead", "fix the build", "fix the world"},        // same length up to the record's end, other bytes, then grown
					{"RewrittenTail", "The build passes.", "The build fails."}, // the line before the record's end
				} {
					writeFile(t, path, bytes.Replace(whole, []byte(c.old), []byte(c.new), 1))
					if _, err := readNative(context.Background(), n, rec, resume, parse.Options{}); !errors.Is(err, errNativeChanged) {
						t.Errorf("%s: %v, want errNativeChanged", c.name, err)
					}
				}
				sameSize := bytes.Replace(whole[:rec.Bytes], []byte("make"), []byte("make"[:3]+"r"), 1)
				writeFile(t, path, sameSize) // rewritten in place, same size, nothing appended
				if _, err := readNative(context.Background(), n, rec, resume, parse.Options{}); !errors.Is(err, errNativeChanged) {
					t.Errorf("rewritten with the same size: %v, want errNativeChanged", err)
				}
				other := filepath.Join(filepath.Dir(path), "other.jsonl")
				writeFile(t, other, bytes.Replace(whole, []byte("fix the build"), []byte("fix the world"), 1))
				if err := os.Rename(other, path); err != nil { // replaced by another file, then grown
					t.Fatal(err)
				}
				if _, err := readNative(context.Background(), n, rec, resume, parse.Options{}); !errors.Is(err, errNativeChanged) {
					t.Errorf("replaced: %v, want errNativeChanged", err)
				}
			})
		})
	}
}

// TestReadNativeResumeNotUsable: a resume that does not decode (damaged,
// or of another layout) reads the file whole, with the same result.
func TestReadNativeResumeNotUsable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	n := Session{Agent: Claude, ID: "s1", Path: path}
	writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"))
	first := mustReadNative(t, n, nil)
	writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"+claudeLine3+"\n"))
	for _, resume := range [][]byte{[]byte("claude-transcript-v0\nxx"), first.resume[:len(first.resume)/2]} {
		rest := mustReadNativeFrom(t, n, record(path, first), resume)
		if rest.tail || eventKinds(rest.events) != "ToolResult" || rest.events[0].ToolName != "Bash" {
			t.Errorf("resume %q: tail %v, %s", clip(string(resume)), rest.tail, eventKinds(rest.events))
		}
	}
}

func eventKinds(evs []codec.Event) string {
	k := make([]string, len(evs))
	for i, e := range evs {
		k[i] = string(e.Kind)
	}
	return strings.Join(k, " ")
}

func TestNativeState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	n := Session{Agent: Claude, ID: "s1", Path: path}
	writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"))
	recs := map[store.NativeKey]store.NativeImport{}
	if st := n.State(recs); st != StateNew {
		t.Errorf("State(no record) = %s", st)
	}
	r := mustReadNative(t, n, nil)
	recs[n.Key()] = *record(path, r)
	if st := n.State(recs); st != StateUpToDate {
		t.Errorf("State(imported) = %s", st)
	}
	writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"+claudeLine3[:30]))
	if st := n.State(recs); st != StateUpToDate {
		t.Errorf("State(a half-written line) = %s, want imported", st)
	}
	writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"+claudeLine3+"\n"))
	if st := n.State(recs); st != StateNewLines {
		t.Errorf("State(a new line) = %s", st)
	}
	sub := Session{Agent: Claude, ID: "s1/agent-1", ParentID: "s1", Path: filepath.Join(t.TempDir(), "agent-1.jsonl")}
	writeFile(t, sub.Path, []byte(claudeLine1+"\n"))
	writeFile(t, path, []byte(claudeLine1+"\n"+claudeLine2+"\n"))
	n.Subagents = []Session{sub}
	if st := n.State(recs); st != StateNewLines {
		t.Errorf("State(a new sub-agent) = %s, want new lines", st)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if st := n.State(recs); st != StateUnreadable {
		t.Errorf("State(removed) = %s", st)
	}
}

func TestEachCompleteLineTooLong(t *testing.T) {
	data := append(bytes.Repeat([]byte("x"), parse.MaxLineSize+10), '\n')
	data = append(data, "{}\n"...)
	var got []string
	err := eachCompleteLine(context.Background(), bytes.NewReader(data), func(line []byte, end int64, tooLong bool) error {
		got = append(got, map[bool]string{true: "long", false: string(line)}[tooLong]+"@"+itoa(int(end)))
		return nil
	})
	want := []string{"long@" + itoa(parse.MaxLineSize+11), "{}@" + itoa(parse.MaxLineSize+14)}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("eachCompleteLine = %v, %v; want %v", got, err, want)
	}
}

// TestReadNativeAppendedPromptKept: a prompt appended after an import is
// stored even when a prompt already imported has the same parentUuid and
// would win AZUREAL's rewind rule (a later timestamp wins; a line without
// one counts as written last). The imported prompt cannot be replaced any
// more, so dropping the new one would lose it. This is the prompt the
// append benchmark lost: B_agent-sessions_claude-small.jsonl has a prompt
// whose parentUuid and timestamp are "[trimmed for fixture]", and the
// appended prompt was parented on the file's last entry, whose uuid is
// that same placeholder.
func TestReadNativeAppendedPromptKept(t *testing.T) {
	src := filepath.Join(fixtures.Dir(t), "transcripts", "B_agent-sessions_claude-small.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	earlier := strings.Replace(claudeLine5, `"timestamp":"2025-06-01T10:01:00.000Z"`, `"timestamp":"2025-06-01T09:00:00.000Z"`, 1)
	cases := []struct {
		name, head, appended string
	}{
		{"FixturePlaceholder", string(data),
			`{"type":"user","message":{"role":"user","content":"zqxmarker appended"},"uuid":"b5d2c1f0-0000-4000-8000-000000000001","parentUuid":"[trimmed for fixture]","sessionId":"ses_stage0_small","timestamp":"2026-01-01T00:00:00.000Z"}`},
		{"EarlierTimestamp", claudeLine1 + "\n" + claudeLine2 + "\n" + claudeLine3 + "\n" + claudeLine4 + "\n" + claudeLine5 + "\n",
			strings.Replace(strings.Replace(earlier, "now the tests", "zqxmarker appended", 1), `"uuid":"u3"`, `"uuid":"u4"`, 1)},
	}
	for _, c := range cases {
		for _, mode := range readModes {
			t.Run(c.name+"/"+mode.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "s.jsonl")
				n := Session{Agent: Claude, ID: "s", Path: path}
				writeFile(t, path, []byte(c.head))
				first := mustReadNative(t, n, nil)
				writeFile(t, path, []byte(c.head+c.appended+"\n"))
				rest := mustReadNativeFrom(t, n, record(path, first), mode.resume(first))
				found := false
				for _, e := range rest.events {
					found = found || (e.Kind == codec.KindUserMessage && strings.Contains(e.Content, "zqxmarker"))
				}
				if !found {
					t.Errorf("the appended prompt was not stored: %s", eventKinds(rest.events))
				}
			})
		}
	}
}
