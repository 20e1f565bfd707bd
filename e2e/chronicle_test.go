package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/chronicle"
	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
)

// TestChronicle has each real CLI write the standup from the prefetched
// facts: the prompt it receives holds them, and the report is its answer
// with the citations checked (a made-up one marked).
func TestChronicle(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		const answer = "# Standup — all the history\n\n- Session 1 asked three questions [S1#1] [S1].\n- A session the model made up [S77#3].\n"
		h := newHarness(t, fm.Script{fm.Text("not the chronicle prompt")},
			fm.Route{Contains: "report of Lazuli's chronicle", Script: fm.Script{fm.Text(answer)}})
		seed := filepath.Join(t.TempDir(), "seed.jsonl")
		bigTranscript(t, seed, 3, 600)
		h.ok("import", "--store", h.store, seed)
		users := kinds(h.show(1), "UserMessage")

		r := h.lazuli("", "chronicle", "standup", "--store", h.store, "--since", "all", "--agent", b.name, "--json")
		if r.code != 0 {
			t.Fatalf("chronicle:\n%s", r)
		}
		var res struct {
			Report     string   `json:"report"`
			Agent      string   `json:"agent"`
			Since      string   `json:"since"`
			Sessions   []string `json:"sessions"`
			Unresolved []string `json:"unresolved"`
			Markdown   string   `json:"markdown"`
			Legend     string   `json:"legend"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("chronicle JSON: %v\n%s", err, r)
		}
		reqs := h.srv.Model()
		if len(reqs) == 0 || reqs[0].Route != 0 {
			t.Fatalf("%s did not send the chronicle prompt", b.name)
		}
		prompt := fm.UserText(reqs[0])
		first := strings.SplitN(users[0].field("content"), "\n", 2)[0]
		for _, want := range []string{`"report":"standup"`, `"cite":"[S1]"`, first, `"cite":"[S1#1]"`} {
			if !strings.Contains(prompt, want) {
				t.Errorf("the prompt lacks the fact %q:\n%.2000s", want, prompt)
			}
		}
		link := func(session, event int64) string { return chronicle.Link(h.store, session, event) }
		legend := "Citations: S12#340 is event 340 of session S12 and S12 the whole session; each opens the transcript there."
		want := "# Standup — all the history\n\n- Session 1 asked three questions [S1#1](" + link(1, 1) + ") [S1](" + link(1, 0) +
			").\n- A session the model made up **S77#3 ⚠ not found**.\n\n---\n\n*" + legend + "*\n"
		if res.Report != "standup" || res.Agent != b.name || res.Since != "all the history" || res.Markdown != want || res.Legend != legend ||
			strings.Join(res.Sessions, ",") != "S1" || strings.Join(res.Unresolved, ",") != "[S77#3]" {
			t.Errorf("chronicle = %+v\nwant the agent's answer with its citations checked:\n%s", res, want)
		}
		if !strings.Contains(r.stderr, "marked in the report: [S77#3]\n") {
			t.Errorf("stderr does not warn of the made-up citation: %q", r.stderr)
		}
		h.check()
	})
}
