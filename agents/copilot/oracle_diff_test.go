package copilot

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
)

// oracleLines returns every captured line: the event logs, the three
// streams, and the captured session store mirrored as lines.
func oracleLines(t testing.TB) map[string][][]byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "capture", "session-state", "*", "events.jsonl"))
	streams, _ := filepath.Glob(filepath.Join("testdata", "capture", "*.stdout.jsonl"))
	files = append(files, streams...)
	if len(files) < 5 {
		t.Fatalf("captures: %v", files)
	}
	out := map[string][][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = bytes.Split(b, []byte("\n"))
	}
	ss, err := ReadStore(context.Background(), capturedStore(t))
	if err != nil || len(ss) == 0 {
		t.Fatalf("ReadStore: %d sessions, %v", len(ss), err)
	}
	for _, s := range ss {
		out["store:"+s.ID] = s.Lines()
	}
	return out
}

// sameAsOracle feeds lines to the parser and to the oracle (the parser as
// it was, reading parse.Object) and reports the first difference in what
// either gives: each line's events, the sub-agents handed out after each
// line and at the end, their marks, Finish, the usage rows and the stats.
func sameAsOracle(t *testing.T, name string, opts parse.Options, lines [][]byte) {
	t.Helper()
	p, o := NewParser(opts), newOracleParser(opts)
	for i, l := range lines {
		if got, want := p.Feed(l), o.Feed(l); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s line %d: events\n got %+v\nwant %+v", name, i, got, want)
		}
		if got, want := p.TakeSubagents(), o.TakeSubagents(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s line %d: sub-agents\n got %+v\nwant %+v", name, i, got, want)
		}
	}
	if got, want := p.SubagentMarks(), o.SubagentMarks(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: marks %v, want %v", name, got, want)
	}
	if got, want := p.Finish(), o.Finish(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Finish %+v, want %+v", name, got, want)
	}
	if got, want := p.TakeSubagents(), o.TakeSubagents(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: last sub-agents\n got %+v\nwant %+v", name, got, want)
	}
	if got, want := p.Usage(), o.Usage(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: usage\n got %+v\nwant %+v", name, got, want)
	}
	if got, want := p.Stats(), o.Stats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: stats %+v, want %+v", name, got, want)
	}
}

// TestParserOracle: on every captured line, for a file and for a run that
// asked for a model, the parser gives exactly what it gave when it read
// each object into a parse.Object.
func TestParserOracle(t *testing.T) {
	n := 0
	for name, lines := range oracleLines(t) {
		sameAsOracle(t, name, parse.Options{}, lines)
		sameAsOracle(t, name+" (a run)", parse.Options{Model: "gpt-5"}, lines)
		n += len(lines)
	}
	t.Logf("%d lines", n)
}

// FuzzParserOracle: any two lines, after a captured session's first
// lines, give what the oracle gives.
func FuzzParserOracle(f *testing.F) {
	multi, _ := captured(f)
	b, err := os.ReadFile(multi)
	if err != nil {
		f.Fatal(err)
	}
	all := strings.Split(string(b), "\n")
	for _, l := range all {
		if len(l) < 4096 {
			f.Add(l, `{"type":"session.error","data":{"message":"x"},"timestamp":"2026-01-01T00:00:00Z"}`)
		}
	}
	f.Add(`{"type":"tool.execution_complete","data":{"toolCallId":"a","success":false,"error":{"message":"m"},"shellExecution":{"exitCode":2}}}`,
		`{"type":"assistant.message","data":{"content":"x","toolRequests":[1,{"toolCallId":"b","name":"bash","arguments":{"command":"ls"}}]}}`)
	f.Add(`{"type":"session.model_change","data":{"model":"m","newModel":null}}`,
		`{"agentId":"s","type":"subagent.completed","data":{"durationMs":-1}}`)
	f.Add(`{"type":"user.message","data":{"content":"a","content":"b"},"type":"x"}`,
		`{"type":"session.usage_record","data":{"usage":{"model":"m","inputTokens":1e3,"outputTokens":"2"}},"timestamp":5}`)
	f.Add(`{"type":"tool.execution_complete","data":{"toolCallId":"c","success":true,"result":{"content":"out"},"shellExecution":{"exitCode":2}}}`,
		`{"type":"tool.execution_complete","data":{"toolCallId":"d","success":false,"error":"denied"}}`)
	f.Add(`{"type":"session.usage_record","data":{"usage":{}}}`, `{"type":"session.start","data":{"context":[],"selectedModel":1}}`)
	head := all[:min(6, len(all))]
	f.Fuzz(func(t *testing.T, a, b string) {
		lines := make([][]byte, 0, len(head)+3)
		for _, l := range head {
			lines = append(lines, []byte(l))
		}
		lines = append(lines, []byte(a), []byte(b), []byte(a))
		sameAsOracle(t, "fuzz", parse.Options{}, lines)
	})
}
