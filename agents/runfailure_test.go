package agents

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
)

// TestRunTurnRecordsWhyItFailed: claude run as root exits at once with
// its reason on stderr; the reason is kept beside the session (shown
// with the failed run's ✗), not in the events, the context or the meter.
func TestRunTurnRecordsWhyItFailed(t *testing.T) {
	st, id := newStore(t)
	const why = "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"
	cfg, env, _ := fakeCLI(t, "#stderr "+why, "#exit 1")
	res, err := RunTurn(context.Background(), st, id, "hi", TurnOptions{Config: cfg, Env: env})
	if !errors.Is(err, ErrNoResult) {
		t.Fatalf("err = %v", err)
	}
	if res.Completed == nil || *res.Completed {
		t.Fatalf("want a failed turn: %+v", res)
	}
	ctx := context.Background()
	events, err := st.Events().All(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	if last.Kind != codec.KindComplete || len(last.RunFailures) != 1 ||
		!strings.Contains(last.RunFailures[0], "exit code 1") || !strings.Contains(last.RunFailures[0], why) {
		t.Fatalf("the failed run's last event %+v, want its reason beside it", last)
	}
	for _, e := range events {
		if e.Kind == codec.KindHook || strings.Contains(e.Event.Text+e.Event.Content+e.Event.Output, "root/sudo") {
			t.Errorf("the reason is in an event: %+v", e)
		}
	}
	p, err := st.Compactions().Context(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(codec.BuildContextPrompt(p, "next"), "root/sudo") {
		t.Error("the reason reached the context")
	}

	// A turn that succeeds records nothing; nor does one the user stops.
	st2, id2 := newStore(t)
	cfg, env, _ = fakeCLI(t, claudeInit, claudeText, claudeOK)
	if _, err := RunTurn(context.Background(), st2, id2, "hi", TurnOptions{Config: cfg, Env: env}); err != nil {
		t.Fatal(err)
	}
	if fs, err := st2.RunFailures().Of(ctx, id2); err != nil || len(fs) != 0 {
		t.Errorf("a successful turn recorded %v, %v", fs, err)
	}
}

// TestRunTurnNoAnswerTimesOut: a Codex that cannot reach its API prints
// retry notices and stderr lines and nothing else. Each is passed to
// OnProgress while it runs; when the connect timer fires (the test's own,
// fired once the retry notice arrived) the agent is stopped and the turn
// fails with ErrNoAnswer, its reason (with the last notice) kept.
func TestRunTurnNoAnswerTimesOut(t *testing.T) {
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, codexStart, `{"type":"turn.started"}`,
		"#stderr 2026-11-25T10:00:00Z WARN codex_core: stream disconnected - retrying turn (1/5 in 200ms)",
		`{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion: error sending request)"}`,
		"#hang")
	fire := make(chan time.Time)
	var waited time.Duration
	var progress []string
	opts := TurnOptions{Config: cfg, Env: env, Backend: Codex, Grace: 100 * time.Millisecond,
		after: func(d time.Duration) <-chan time.Time { waited = d; return fire },
		OnProgress: func(s string) {
			progress = append(progress, s)
			if strings.HasPrefix(s, "Reconnecting... 1/5") {
				close(fire)
			}
		}}
	res, err := RunTurn(context.Background(), st, id, "hi", opts)
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("err = %v, want ErrNoAnswer", err)
	}
	if waited != DefaultConnectTimeout {
		t.Errorf("connect timer of %s, want DefaultConnectTimeout", waited)
	}
	if res.Completed == nil || *res.Completed {
		t.Errorf("want a failed turn: %+v", res)
	}
	// stdout and stderr are two pipes: their lines arrive in either order.
	all := strings.Join(progress, "\n")
	if len(progress) != 2 || !strings.Contains(all, "stream disconnected - retrying") || !strings.Contains(all, "Reconnecting... 1/5") {
		t.Errorf("progress = %q, want the stderr line and the retry notice", progress)
	}
	fs, err := st.RunFailures().Of(context.Background(), id)
	if err != nil || len(fs) != 1 || !strings.Contains(fs[0].Reason, "no answer from the model within 5m0s") ||
		!strings.Contains(fs[0].Reason, "stream disconnected") {
		t.Errorf("failures %+v, %v", fs, err)
	}
}
