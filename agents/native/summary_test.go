package native

import "testing"

func TestSummaryString(t *testing.T) {
	main := func(id string, o Outcome, events int) Result {
		return Result{Agent: Claude, ID: id, Outcome: o, Events: events}
	}
	sub := func(parent, id string, o Outcome, events int) Result {
		r := main(parent+"/"+id, o, events)
		r.ParentID = parent
		return r
	}
	for _, tc := range []struct {
		name    string
		results []Result
		want    string
	}{
		{"nothing", nil, "Imported 0 new sessions with 0 events; appended 0 events to 0 sessions; 0 unchanged; 0 skipped."},
		{"one", []Result{main("a", Imported, 1)}, "Imported 1 new session with 1 event; appended 0 events to 0 sessions; 0 unchanged; 0 skipped."},
		{"one with its sub-agent", []Result{main("a", Imported, 3), sub("a", "agent-x", Imported, 2)},
			"Imported 1 new session and its sub-agent with 5 events; appended 0 events to 0 sessions; 0 unchanged; 0 skipped."},
		{"sessions and their sub-agents", []Result{main("a", Imported, 3), sub("a", "agent-x", Imported, 2), sub("a", "agent-y", Imported, 2),
			main("b", Imported, 1), sub("b", "agent-z", Imported, 1), main("c", Appended, 4), main("d", Unchanged, 0), main("e", Skipped, 0)},
			"Imported 2 new sessions and their 3 sub-agents with 9 events; appended 4 events to 1 session; 1 unchanged; 1 skipped."},
		{"sessions and one sub-agent", []Result{main("a", Imported, 3), sub("a", "agent-x", Imported, 2), main("b", Imported, 1)},
			"Imported 2 new sessions and 1 sub-agent with 6 events; appended 0 events to 0 sessions; 0 unchanged; 0 skipped."},
		{"a sub-agent whose parent is not found is a session", []Result{sub("gone", "agent-x", Imported, 2)},
			"Imported 1 new session with 2 events; appended 0 events to 0 sessions; 0 unchanged; 0 skipped."},
		{"a sub-agent of a session imported before", []Result{main("a", Unchanged, 0), sub("a", "agent-x", Imported, 2)},
			"Imported 1 new sub-agent with 2 events; appended 0 events to 0 sessions; 1 unchanged; 0 skipped."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarize(tc.results, 0).String(); got != tc.want {
				t.Errorf("Summarize(%s).String() = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}
