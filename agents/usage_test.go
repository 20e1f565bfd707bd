package agents

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

func parseUsage(t *testing.T, f parse.Format, lines ...string) ([]codec.Event, []store.Usage) {
	t.Helper()
	p, err := NewParser(f, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []codec.Event
	for _, l := range lines {
		evs = append(evs, p.Feed([]byte(l))...)
	}
	evs = append(evs, p.Finish()...)
	evs = store.FilterInjectedEvents(evs)
	return evs, parse.PlaceUsage(evs, p.(parse.UsageParser).Usage())
}

// TestTranscriptUsageOncePerMessage: a message's lines repeat its id while
// its output grows; it counts once, with its last usage, after its last
// event.
func TestTranscriptUsageOncePerMessage(t *testing.T) {
	evs, us := parseUsage(t, parse.FormatClaudeTranscript,
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-11-20T10:00:00Z","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"one"}],"usage":{"input_tokens":5,"output_tokens":1,"cache_read_input_tokens":100}}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","timestamp":"2026-11-20T10:00:01Z","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a"}}],"usage":{"input_tokens":5,"output_tokens":9,"cache_read_input_tokens":100}}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"a2","message":{"id":"m2","model":"claude-sonnet-4-5","content":[{"type":"text","text":"two"}],"usage":{"input_tokens":1,"output_tokens":2}}}`,
	)
	if len(us) != 2 {
		t.Fatalf("usage %+v", us)
	}
	if u := us[0]; u.Output != 9 || u.Input != 5 || u.CacheRead != 100 || u.MessageID != "m1" || u.At != "2026-11-20 10:00:01" || evs[u.Event].Kind != codec.KindToolCall {
		t.Errorf("m1 = %+v (after %v)", u, evs[u.Event].Kind)
	}
	if u := us[1]; u.Output != 2 || evs[u.Event].Text != "two" {
		t.Errorf("m2 = %+v", u)
	}
}

// TestRolloutUsagePerTurn: a rollout's token_count totals are billed at each
// turn's end, cached input moved to cache read; what follows the last
// turn's end is billed at the end.
func TestRolloutUsagePerTurn(t *testing.T) {
	tc := func(in, cached, out, rs int) string {
		return strings.NewReplacer("IN", strconv.Itoa(in), "CA", strconv.Itoa(cached), "OUT", strconv.Itoa(out), "RS", strconv.Itoa(rs)).Replace(
			`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":IN,"cached_input_tokens":CA,"output_tokens":OUT,"reasoning_output_tokens":RS}}}}`)
	}
	evs, us := parseUsage(t, parse.FormatCodexRollout,
		`{"type":"session_meta","payload":{"id":"s1","cwd":"/w"}}`,
		`{"type":"turn_context","payload":{"model":"gpt-5-codex"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"first"}}`,
		tc(100, 40, 10, 3),
		`{"type":"event_msg","payload":{"type":"task_complete"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"second"}}`,
		tc(250, 100, 30, 5),
		`{"type":"event_msg","payload":{"type":"task_complete"}}`,
		tc(300, 100, 35, 5),
	)
	want := []store.Usage{
		{Tokens: store.Tokens{Input: 60, CacheRead: 40, Output: 10, Reasoning: 3}},
		{Tokens: store.Tokens{Input: 90, CacheRead: 60, Output: 20, Reasoning: 2}},
		{Tokens: store.Tokens{Input: 50, CacheRead: 0, Output: 5, Reasoning: 0}},
	}
	if len(us) != len(want) {
		t.Fatalf("usage %+v", us)
	}
	for i, w := range want {
		u := us[i]
		if u.Input != w.Input || u.CacheRead != w.CacheRead || u.Output != w.Output || u.Reasoning != w.Reasoning || u.Model != "gpt-5-codex" || u.HasCost {
			t.Errorf("turn %d = %+v, want %+v", i, u, w)
		}
	}
	if evs[us[0].Event].Kind != codec.KindComplete || evs[us[1].Event].Kind != codec.KindComplete {
		t.Errorf("turns not anchored at their Complete: %v %v", evs[us[0].Event].Kind, evs[us[1].Event].Kind)
	}
}
