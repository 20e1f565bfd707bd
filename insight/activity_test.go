package insight

import (
	"context"
	"testing"
)

// TestActivityRows: the per-session rows the chronicle reports read.
func TestActivityRows(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 2, 4) // 9 events a turn; the Edit of every other turn fails
	x := mustIndex(t, st)

	act, err := x.Sessions().Activity(ctx, "")
	if err != nil || len(act) != 2 {
		t.Fatalf("Activity = %d sessions, %v; want 2", len(act), err)
	}
	a := act[0]
	if a.ID != 1 || a.Turns != 4 || a.Events != 36 || a.DurationMS != 40 || a.CostUSD <= 0 || !a.CostEstimated ||
		len(a.Models) != 1 || a.Models[0].Model != "gpt-5" || a.Models[0].Backend != "codex" || a.Models[0].Turns != 4 {
		t.Errorf("Activity[0] = %+v", a)
	}
	if later, err := x.Sessions().Activity(ctx, "2999-01-01 00:00:00"); err != nil || len(later) != 0 {
		t.Errorf("Activity since 2999 = %+v, %v; want none", later, err)
	}

	turns, err := x.Sessions().Turns(ctx, []int64{1})
	if err != nil || len(turns) != 4 {
		t.Fatalf("TurnRows = %d, %v; want 4", len(turns), err)
	}
	for i, tr := range turns {
		wantErrs := int64(1 - i%2)
		if tr.Session != 1 || tr.Turn != int64(i+1) || tr.FirstSeq != int64(9*i+1) || tr.LastSeq != int64(9*i+9) ||
			tr.ToolCalls != 3 || tr.ToolErrors != wantErrs || tr.Success == nil || !*tr.Success || tr.DurationMS == nil || *tr.DurationMS != 10 {
			t.Errorf("turn %d = %+v", i+1, tr)
		}
	}

	errs, err := x.Tools().Errors(ctx)
	if err != nil || len(errs) != 2 || errs[0] != (ToolError{1, ToolRow{"Edit", 4, 2}}) || errs[1] != (ToolError{2, ToolRow{"Edit", 4, 2}}) {
		t.Errorf("ToolErrors = %+v, %v", errs, err)
	}

	churn, err := x.Files().Churned(ctx, 2)
	want := []Churn{{1, "/w/src/f0.go", 2, 4, 31}, {2, "/w/src/f1.go", 2, 4, 31}}
	if err != nil || len(churn) != 2 || churn[0] != want[0] || churn[1] != want[1] {
		t.Errorf("Churned(2) = %+v, %v; want %+v", churn, err, want)
	}

	changes, err := x.Files().Changes(ctx)
	if err != nil || len(changes) != 6 {
		t.Errorf("Changes = %+v, %v; want the 3 edited files of each session", changes, err)
	}
	for _, c := range changes {
		if c.Action != ActionEdit {
			t.Errorf("a change %+v is not an edit (reads are left out)", c)
		}
	}
	mentions, err := x.Refs().Mentions(ctx)
	if err != nil || len(mentions) == 0 {
		t.Fatalf("Mentions = %v, %v", mentions, err)
	}
	for _, m := range mentions {
		if m.Kind == RefURL {
			t.Errorf("a plain URL among the mentions: %+v", m)
		}
	}
}
