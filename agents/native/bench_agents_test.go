package native

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// geminiIDs matches the ids of a Gemini chat file's records and tool calls.
var geminiIDs = regexp.MustCompile(`"id":"([^"]+)"`)

// scaledGemini writes a chat file of about size bytes to dir: the
// captured session's lines after its header, repeated with every id made
// unique per copy (as a long session has distinct records).
func scaledGemini(b *testing.B, dir string, size int) string {
	b.Helper()
	src, err := filepath.Glob(filepath.Join(geminiCapture("resumed"), "tmp", "proj", "chats", "session-*.jsonl"))
	if err != nil || len(src) != 1 {
		b.Fatalf("gemini capture: %v %v", src, err)
	}
	data, err := os.ReadFile(src[0])
	if err != nil {
		b.Fatal(err)
	}
	header, body, _ := bytes.Cut(data, []byte("\n"))
	var out bytes.Buffer
	out.Write(header)
	out.WriteByte('\n')
	for k := 0; out.Len() < size; k++ {
		out.Write(geminiIDs.ReplaceAll(body, []byte(fmt.Sprintf(`"id":"${1}-%d"`, k))))
	}
	path := filepath.Join(dir, "session-bench.jsonl")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// scaledQwen writes a Qwen chat file of about size bytes to dir: the
// captured session's records repeated (its parser keys nothing by id).
func scaledQwen(b *testing.B, dir string, size int) string {
	b.Helper()
	src, err := filepath.Glob(filepath.Join("..", "qwen", "testdata", "capture", "resumed.home", ".qwen", "projects", "*", "chats", "*.jsonl"))
	if err != nil || len(src) != 1 {
		b.Fatalf("qwen capture: %v %v", src, err)
	}
	data, err := os.ReadFile(src[0])
	if err != nil {
		b.Fatal(err)
	}
	out := bytes.Repeat(data, size/len(data)+1)
	path := filepath.Join(dir, "bench.jsonl")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkNativeReadPerAgent reads one native transcript as an import
// does (readNative: every line parsed, events and usage out, checksum),
// for each agent: a Claude shared fixture transcript beside a Gemini and
// a Qwen chat file of the same size made from the captures. It reports
// MB/s.
func BenchmarkNativeReadPerAgent(b *testing.B) {
	claudePath := filepath.Join(fixtures.Dir(b, "transcripts"), "B_claude-code-log_37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl")
	fi, err := os.Stat(claudePath)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct{ agent, path string }{
		{Claude, claudePath},
		{Gemini, scaledGemini(b, b.TempDir(), int(fi.Size()))},
		{Qwen, scaledQwen(b, b.TempDir(), int(fi.Size()))},
	}
	for _, c := range cases {
		b.Run(c.agent, func(b *testing.B) {
			fi, err := os.Stat(c.path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			n := Session{Agent: c.agent, Path: c.path}
			events := 0
			for b.Loop() {
				r, err := readNative(context.Background(), n, nil, nil, parse.Options{ClaudeHome: os.DevNull})
				if err != nil {
					b.Fatal(err)
				}
				events = len(r.events)
			}
			b.ReportMetric(float64(events), "events")
		})
	}
}
