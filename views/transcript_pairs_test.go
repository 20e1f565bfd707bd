package views

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

// parallelEvents are three calls made at once, answered out of order, then
// a prompt and a call answered after it.
func parallelEvents(t testing.TB) []store.StoredEvent {
	in := func(cmd string) json.RawMessage { return rawJSON(t, map[string]any{"command": cmd}) }
	evs := stored(
		codec.UserMessage("look around"),
		codec.AssistantText("Three at once."),
		codec.ToolCall("a", "Bash", nil, in("ls")),
		codec.ToolCall("b", "Bash", nil, in("pwd")),
		codec.ToolCall("c", "Bash", nil, in("date")),
		codec.ToolResult("b", "Bash", nil, "B out", false),
		codec.ToolResult("c", "Bash", nil, "C out", false),
		codec.ToolResult("a", "Bash", nil, "A out", false),
		codec.AssistantText("Done."),
		codec.ToolCall("d", "Bash", nil, in("whoami")),
		codec.UserMessage("and now?"),
		codec.ToolResult("d", "Bash", nil, "D out", false),
	)
	evs[5].Thinking = []string{"B came first"}
	return evs
}

// rowNames names rows by their event's text: "U:", "A:", "call a",
// "res a", "think a".
func rowNames(rows []transcriptRow, events []store.StoredEvent) string {
	var out []string
	for _, r := range rows {
		if r.kind == rowCompaction {
			out = append(out, "summary")
			continue
		}
		e := &events[r.event].Event
		switch {
		case r.kind == rowThinking:
			out = append(out, "think "+e.ToolUseID)
		case e.Kind == codec.KindToolCall:
			out = append(out, "call "+e.ToolUseID)
		case e.Kind == codec.KindToolResult:
			out = append(out, "res "+e.ToolUseID)
		case e.Kind == codec.KindUserMessage:
			out = append(out, "U:"+e.Content)
		default:
			out = append(out, "A:"+e.Text)
		}
	}
	return strings.Join(out, ", ")
}

// Each result is shown under its call, with its thinking; nothing moves
// across a prompt.
func TestPairResults(t *testing.T) {
	evs := parallelEvents(t)
	got := rowNames(buildRows(evs, nil), evs)
	want := "U:look around, A:Three at once., call a, res a, call b, think b, res b, call c, res c, A:Done., call d, U:and now?, res d"
	if got != want {
		t.Errorf("buildRows = %s\nwant        %s", got, want)
	}
}

// Results streamed in after their calls join them, and the cards, the
// find texts and ShowEvent follow the rows that moved.
func TestPairResultsAppended(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 800))
	evs := parallelEvents(t)
	tr.SetSession(store.Session{ID: 1}, evs[:5], nil)
	q.drain()
	tr.Find().Show()
	tr.Find().entry.SetText("out")
	for i := 5; i < 9; i++ {
		tr.AppendEvents(evs[i : i+1])
		q.drain()
	}
	got := rowNames(tr.rows.rows, tr.rows.events)
	want := "U:look around, A:Three at once., call a, res a, call b, think b, res b, call c, res c, A:Done."
	if got != want {
		t.Fatalf("rows after AppendEvents = %s\nwant                        %s", got, want)
	}
	for id, c := range cardsByRow(tr) {
		e := &tr.rows.events[tr.rows.rows[id].event].Event
		if tr.rows.rows[id].kind == rowResult && cardBody(c) != e.Content {
			t.Errorf("card of row %d shows %q, want %q", id, cardBody(c), e.Content)
		}
	}
	if n := len(tr.Find().matches); n != 3 {
		t.Errorf("find matches %d rows, want 3", n)
	}
	for _, m := range tr.Find().matches {
		if !strings.Contains(tr.rows.rowText(m), "out") {
			t.Errorf("find match row %d = %q", m, tr.rows.rowText(m))
		}
	}
	for _, seq := range []int64{6, 7, 8} { // results b, c, a
		if !tr.Nav().ShowEvent(seq, false) || tr.rows.events[tr.rows.rows[tr.find.row].event].Seq != seq {
			t.Errorf("ShowEvent(%d) went to row %d (%s)", seq, tr.find.row, tr.rows.rowText(tr.find.row))
		}
	}
}

// rowAtSeq finds an event's row wherever pairing put it, and the nearest
// later event when the seq has no row.
func TestRowAtSeq(t *testing.T) {
	evs := parallelEvents(t)
	evs = append(evs[:3], evs[4:]...) // seq 4 (call b) filtered out
	r := &rowList{rowState: rowState{events: evs, rows: buildRows(evs, nil)}}
	for _, tc := range []struct {
		seq  int64
		want string
	}{
		{8, "res a"}, {3, "call a"}, {4, "call c"}, {6, "res b"}, {12, "res d"}, {13, ""},
	} {
		got := ""
		if row := r.rowAtSeq(tc.seq, false, false); row >= 0 {
			got = rowNames(r.rows[row:row+1], evs)
		}
		if got != tc.want {
			t.Errorf("rowAtSeq(%d) = %q, want %q", tc.seq, got, tc.want)
		}
	}
}

// In real transcripts with parallel calls, every result whose call is in
// the same stretch follows it, and every row is kept once.
func TestPairResultsFixtures(t *testing.T) {
	dir := fixtures.Dir(t, "transcripts")
	for _, name := range []string{
		"B_claude-code-log_29ccd257-subagents--agent-a2271d1.jsonl",
		"B_claude-code-log_a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
	} {
		t.Run(name, func(t *testing.T) {
			evs := stored(toolEventsOf(t, filepath.Join(dir, name))...)
			plain := appendRows(nil, evs, 0)
			rows := buildRows(evs, nil)
			if len(rows) != len(plain) {
				t.Fatalf("%d rows, want %d", len(rows), len(plain))
			}
			seen := map[[2]int]bool{}
			moved, lastCall := 0, ""
			for i, r := range rows {
				seen[[2]int{r.event, int(r.kind)}] = true
				e := &evs[r.event].Event
				switch e.Kind {
				case codec.KindToolCall:
					lastCall = e.ToolUseID
				case codec.KindToolResult:
					if e.ToolUseID != lastCall {
						t.Errorf("row %d: result %s under call %s", i, e.ToolUseID, lastCall)
					}
					if plain[i].event != r.event {
						moved++
					}
				case codec.KindUserMessage:
					lastCall = ""
				}
			}
			if len(seen) != len(plain) {
				t.Errorf("%d distinct rows, want %d", len(seen), len(plain))
			}
			if moved == 0 {
				t.Errorf("no result moved: the fixture has no parallel calls")
			}
		})
	}
}

// toolEventsOf reads a Claude Code transcript's prompts, texts, tool calls
// and results (enough to order them; agents' parsers are not ours to
// import here).
func toolEventsOf(t *testing.T, path string) []codec.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		fixtures.Missing(t, err)
	}
	defer f.Close()
	var out []codec.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || (line.Type != "user" && line.Type != "assistant") {
			continue
		}
		var text string
		if json.Unmarshal(line.Message.Content, &text) == nil {
			out = append(out, codec.UserMessage(text))
			continue
		}
		var blocks []struct {
			Type, ID, Name, Text, ToolUseID string
			Input                           json.RawMessage
		}
		if err := json.Unmarshal(line.Message.Content, &blocks); err != nil {
			continue
		}
		var ids struct {
			Blocks []struct {
				ToolUseID string `json:"tool_use_id"`
			}
		}
		_ = json.Unmarshal([]byte(`{"Blocks":`+string(line.Message.Content)+`}`), &ids)
		for i, b := range blocks {
			switch b.Type {
			case "text":
				out = append(out, codec.AssistantText(b.Text))
			case "tool_use":
				out = append(out, codec.ToolCall(b.ID, b.Name, nil, b.Input))
			case "tool_result":
				out = append(out, codec.ToolResult(ids.Blocks[i].ToolUseID, "", nil, "out", false))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(fmt.Errorf("read %s: %w", path, err))
	}
	return out
}
