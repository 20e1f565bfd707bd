package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// bigSource builds a session of n events shaped like a long agent session:
// prompts, markdown replies that talk about tokens, passwords and keys,
// shell commands, Edit diffs, and tool results with code, logs and hashes;
// one event in a thousand holds a secret.
func bigSource(n int) Source {
	reply := "I'll update the token refresh logic in `auth/session.go`. The password check stays as it is; " +
		"the API key is read from the environment (`os.Getenv(\"API_KEY\")`).\n\n" +
		"- rotate the secret on logout\n- keep `max_tokens = 4096`\n\n```go\nfunc refresh(tok *Token) error {\n\treturn nil\n}\n```\n"
	result := "ok  \tgithub.com/acme/app/auth\t0.412s\nok  \tgithub.com/acme/app/store\t1.030s\n" +
		"commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Dev <dev@example.com>\n" +
		strings.Repeat("    token, err := s.issue(ctx, user.ID) // session 550e8400-e29b-41d4-a716-446655440000\n", 4)
	evs := make([]store.StoredEvent, n)
	for i := range evs {
		var e codec.Event
		switch i % 8 {
		case 0:
			e = codec.UserMessage(fmt.Sprintf("Step %d: make the password reset send a token by mail, then run the tests.", i))
		case 1, 4:
			e = codec.AssistantText(reply)
		case 2:
			e = codec.ToolCall("t", "Bash", nil, json.RawMessage(`{"command":"go test ./auth/... -run TestToken -count=1"}`))
		case 3, 6:
			e = codec.ToolResult("t", "Bash", nil, result, false)
		case 5:
			e = codec.ToolCall("t", "Edit", nil, json.RawMessage(`{"file_path":"auth/session.go","old_string":"if tok.Expired() {\n\treturn ErrExpired\n}","new_string":"if tok.Expired() {\n\treturn s.refresh(ctx, tok)\n}"}`))
		case 7:
			e = codec.Complete(true, 12_000, 0.02)
		}
		if i%1000 == 999 {
			e = codec.ToolResult("t", "Bash", nil, "AWS_ACCESS_KEY_ID="+awsKeyID+"\nGITHUB_TOKEN="+githubToken, false)
		}
		evs[i] = store.StoredEvent{Seq: int64(i + 1), Kind: e.Kind, Event: e}
	}
	return NewSource(store.Session{ID: 1, Name: "big", Worktree: "main"}, evs, nil)
}

// BenchmarkScan scans a 50,000-event session.
func BenchmarkScan(b *testing.B) {
	src := bigSource(50_000)
	rep := Scan(src)
	b.SetBytes(rep.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		rep = Scan(src)
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(src.Events))/sec, "events/s")
	b.ReportMetric(sec*1000, "ms/session")
	b.ReportMetric(float64(len(rep.Findings)), "findings")
}

// BenchmarkRender renders the same session in each format.
func BenchmarkRender(b *testing.B) {
	src := bigSource(50_000)
	for _, f := range Formats {
		b.Run(f.String(), func(b *testing.B) {
			b.ReportAllocs()
			var cw countingWriter
			for b.Loop() {
				cw = 0
				if err := Render(&cw, src, f); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(cw))
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/session")
		})
	}
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
