package store

import (
	"bytes"
	"context"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestImportCachedStatements imports sessions of 0 to 70 events (the
// multi-row INSERT, and every size of tail flush splits), with thinking
// and results whose full text is kept, each with a usage row, in one
// Import, whose transaction caches its statements, and
// the same sessions one Append each, which prepares its own: the rows
// (ids, seqs, kinds, payloads) and the usage must be the same.
func TestImportCachedStatements(t *testing.T) {
	ctx := context.Background()
	const sessions = 71
	eventsOf := func(n int) []codec.Event {
		var evs []codec.Event
		for i := range n {
			if i%5 == 4 {
				evs = append(evs, Thinking("thinking "+itoaTest(i)))
			}
			evs = append(evs, codec.AssistantText("reply "+itoaTest(i)))
		}
		if n%3 == 0 {
			evs = append(evs, fullEvents()...)
		}
		return evs
	}
	usageOf := func(n int) []Usage {
		return []Usage{{Event: n - 1, Source: "pi", Model: "m", Backend: "pi", Tokens: Tokens{Input: int64(n + 1), Output: 2}}}
	}
	imported, appended := mustOpen(t), mustOpen(t)
	var batches []NativeBatch
	for n := range sessions {
		b := nativeBatch("s"+itoaTest(n), eventsOf(n)...)
		b.Usage = usageOf(n)
		batches = append(batches, b)
		sess := mustCreateSession(t, appended, "main", "fix the build")
		if _, err := appended.Events().Append(ctx, sess.ID, eventsOf(n), usageOf(n)...); err != nil {
			t.Fatal(err)
		}
	}
	res := mustImportNative(t, imported, batches...)
	for n, r := range res {
		if r.SessionID != int64(n+1) || r.Events != len(eventsOf(n))-n/5 || r.Created != true {
			t.Fatalf("session %d: %+v", n, r)
		}
	}
	rows := func(s *Store) []ScannedEvent {
		var out []ScannedEvent
		err := s.Scan().Events(ctx, ScanOptions{Raw: true}, func(b []ScannedEvent) error {
			if err := s.FullText().Attach(ctx, b); err != nil {
				return err
			}
			out = append(out, b...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	got, want := rows(imported), rows(appended)
	fulls := 0
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%d rows imported, %d appended", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.SessionID != w.SessionID || g.Seq != w.Seq || g.Kind != w.Kind || !bytes.Equal(g.Payload, w.Payload) ||
			len(g.Payload) == 0 || g.Full != w.Full {
			t.Fatalf("row %d imported %+v\nappended %+v", i, g, w)
		}
		fulls += len(g.Full)
	}
	if fulls == 0 {
		t.Error("no full text kept")
	}
	for id := int64(1); id <= sessions; id++ {
		gt, err := imported.Thinking().Of(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wt, err := appended.Thinking().Of(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(gt) != len(wt) || len(wt) != int(id-1)/5 {
			t.Fatalf("session %d: %d thoughts imported, %d appended", id, len(gt), len(wt))
		}
		for i := range wt {
			if gt[i] != wt[i] {
				t.Errorf("session %d thought %d: imported %+v, appended %+v", id, i, gt[i], wt[i])
			}
		}
	}
	gu, err := imported.Usage().Rows(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	wu, err := appended.Usage().Rows(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(gu) != len(wu) || len(gu) != sessions {
		t.Fatalf("usage rows: imported %d, appended %d", len(gu), len(wu))
	}
	for i := range wu {
		g, w := gu[i], wu[i]
		if g.SessionID != w.SessionID || g.AfterSeq != w.AfterSeq || g.Input != w.Input {
			t.Errorf("usage %d imported %+v\nappended %+v", i, g, w)
		}
	}
}
