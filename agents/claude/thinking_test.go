package claude

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

// TestClaudeThinkingIsKept imports a real transcript with 36 thinking
// blocks: each becomes thinking, stored beside the events, so the store's
// events (AZUREAL's view) are what they were without it.
func TestClaudeThinkingIsKept(t *testing.T) {
	path := fixtures.Dir(t, "transcripts", "B_claude-code-log_7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl")
	want := countThinkingBlocks(t, path)
	if want != 36 {
		t.Fatalf("the fixture has %d non-blank thinking blocks, want 36", want)
	}
	events, _, _, err := parseFile(path, parse.FormatClaudeTranscript, parse.Options{ClaudeHome: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	thinking, others := 0, 0
	for _, e := range events {
		if e.Kind == codec.KindThinking {
			thinking++
		} else {
			others++
		}
	}
	if thinking != want {
		t.Errorf("%d thinking events, want %d", thinking, want)
	}
	ctx := context.Background()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.azs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Sessions().Create(ctx, "main", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Events().Append(ctx, sess.ID, events); err != nil {
		t.Fatal(err)
	}
	got, err := st.Sessions().Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	thoughts, err := st.Thinking().Of(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(thoughts) != want || got.EventCount > int64(others) {
		t.Errorf("stored %d thoughts and %d events, want %d thoughts and at most %d events", len(thoughts), got.EventCount, want, others)
	}
	loaded, err := st.Events().All(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, e := range loaded {
		shown += len(e.Thinking)
	}
	if shown != want {
		t.Errorf("the loaded transcript shows %d thoughts, want %d", shown, want)
	}
}

// countThinkingBlocks counts the non-blank thinking blocks of a transcript.
func countThinkingBlocks(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, parse.MaxLineSize)
	n := 0
	for sc.Scan() {
		var line struct {
			Type    string
			Message struct {
				Content json.RawMessage
			}
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "assistant" {
			continue
		}
		var blocks []struct{ Type, Thinking string }
		if json.Unmarshal(line.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "thinking" && strings.TrimSpace(b.Thinking) != "" {
				n++
			}
		}
	}
	return n
}
