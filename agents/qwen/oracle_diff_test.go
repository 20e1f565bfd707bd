package qwen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// chatFiles returns every chat file the real CLI wrote here (sub-agents'
// included), each as its lines.
func chatFiles(t testing.TB) map[string][][]byte {
	t.Helper()
	out := map[string][][]byte{}
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") || filepath.Base(path) == "usage_record.jsonl" ||
			strings.HasSuffix(path, ".stdout.jsonl") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = bytes.Split(b, []byte("\n"))
		return nil
	})
	if err != nil || len(out) < 4 {
		t.Fatalf("chat files: %d, %v", len(out), err)
	}
	return out
}

// sameAsChatOracle feeds lines to the chat parser and to the oracle (the
// parser as it was, reading parse.Object) and reports the first difference:
// each line's events, Tail after each line, then the session's id, folder
// and start, Held, Finish, the usage rows and the stats.
func sameAsChatOracle(t *testing.T, name string, lines [][]byte) {
	t.Helper()
	p, o := NewChatParser(), newOracleChatParser()
	for i, l := range lines {
		if got, want := p.Feed(l), o.Feed(l); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s line %d: events\n got %+v\nwant %+v", name, i, got, want)
		}
		if got, want := p.Tail(), o.Tail(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s line %d: Tail\n got %+v\nwant %+v", name, i, got, want)
		}
	}
	if p.SessionID() != o.SessionID() || p.Cwd() != o.Cwd() || !p.Started().Equal(o.Started()) {
		t.Fatalf("%s: session %q %q %v, want %q %q %v", name, p.SessionID(), p.Cwd(), p.Started(), o.SessionID(), o.Cwd(), o.Started())
	}
	if got, want := p.Held(), o.Held(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Held %+v, want %+v", name, got, want)
	}
	if got, want := p.Finish(), o.Finish(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Finish %+v, want %+v", name, got, want)
	}
	if got, want := p.Usage(), o.Usage(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: usage\n got %+v\nwant %+v", name, got, want)
	}
	if got, want := p.Stats(), o.Stats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: stats %+v, want %+v", name, got, want)
	}
}

// TestChatParserOracle: on every captured chat file the parser gives
// exactly what it gave when it read each object into a parse.Object.
func TestChatParserOracle(t *testing.T) {
	n := 0
	for name, lines := range chatFiles(t) {
		sameAsChatOracle(t, name, lines)
		n += len(lines)
	}
	t.Logf("%d lines", n)
}

// FuzzChatParserOracle: any two lines, after a captured session's first
// lines, give what the oracle gives.
func FuzzChatParserOracle(f *testing.F) {
	var head []string
	for _, lines := range chatFiles(f) {
		for _, l := range lines {
			if len(l) < 4096 {
				f.Add(string(l), `{"type":"user","message":{"parts":[{"text":"next"}]},"timestamp":"2026-01-01T00:00:00Z"}`)
			}
		}
		if head == nil {
			for _, l := range lines[:min(4, len(lines))] {
				head = append(head, string(l))
			}
		}
	}
	f.Add(`{"type":"assistant","message":{"parts":[{"functionCall":{}},{"text":" ","thought":true},{"text":"t","thought":"yes"},7]},"usageMetadata":{"promptTokenCount":5,"cachedContentTokenCount":9}}`,
		`{"type":"tool_result","toolCallResult":{"status":"error"},"message":{"parts":[{"functionResponse":{"id":"x","response":{"output":"o","error":"e"}}},{"functionResponse":[]}]}}`)
	f.Add(`{"type":"system","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_error","error_type":"t"}}}`,
		`{"type":"system","systemPayload":{"uiEvent":{"event\u002ename":"qwen-code.api_error","error_message":"m"}}}`)
	f.Add(`{"sessionId":1,"type":"user","cwd":"/a","cwd":"/b","message":{"parts":[{"text":"a"},{"text":"b"}]}}`, `{"type":null}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		lines := make([][]byte, 0, len(head)+3)
		for _, l := range head {
			lines = append(lines, []byte(l))
		}
		lines = append(lines, []byte(a), []byte(b), []byte(a))
		sameAsChatOracle(t, "fuzz", lines)
	})
}

// BenchmarkChatParser reads the captured chat files, repeated to about
// 1 MB, the way the native importer feeds them.
func BenchmarkChatParser(b *testing.B) {
	var data []byte
	for _, lines := range chatFiles(b) {
		data = append(data, bytes.Join(lines, []byte("\n"))...)
		data = append(data, '\n')
	}
	data = bytes.Repeat(data, 1+(1<<20)/len(data))
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p := NewChatParser()
		n := 0
		for _, l := range lines {
			n += len(p.Feed(l))
		}
		n += len(p.Finish())
		b.ReportMetric(float64(n), "events/op")
	}
}
