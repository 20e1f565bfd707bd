package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/genstore"
	"github.com/lazuli-app/lazuli/internal/pgtest"
	"github.com/lazuli-app/lazuli/store"
)

// TestTeamCommands pushes two stores as two machines with lazuli sync
// push, then lists, shows, searches, totals and pulls them with lazuli
// team, as JSON in the local commands' shapes.
func TestTeamCommands(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.URL(srv.CreateDB(t), pgtest.Superuser)
	dir := t.TempDir()
	ctx := context.Background()
	var paths []string
	for i, seed := range []uint64{1, 2} {
		p := filepath.Join(dir, []string{"a.azs", "b.azs"}[i])
		if _, err := genstore.Create(ctx, p, genstore.Options{Sessions: 3, Events: 120, Seed: seed}, false); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	st, err := store.Open(ctx, paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "main", "quokka", []codec.Event{codec.UserMessage("find the quokka bug")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "main", "evil\x1b]0;title\x07name", []codec.Event{codec.UserMessage("x")}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	t.Setenv("LAZULI_PG", url)
	for i, m := range []string{"laptop", "desktop"} {
		code, out, errOut := run(t, dir, "sync", "push", "--store", paths[i], "--machine", m, "--json")
		if code != 0 {
			t.Fatalf("sync push: %d %s", code, errOut)
		}
		var reps []struct {
			StoreID string `json:"store_id"`
			Events  int64  `json:"events"`
		}
		if err := json.Unmarshal([]byte(out), &reps); err != nil || len(reps) != 1 || reps[0].Events == 0 {
			t.Fatalf("push report %q: %v", out, err)
		}
	}
	code, out, errOut := run(t, dir, "team", "ls", "--json")
	if code != 0 {
		t.Fatalf("team ls: %s", errOut)
	}
	var list []struct {
		ID          int64  `json:"id"`
		DisplayName string `json:"display_name"`
		Machine     string `json:"machine"`
		SessionID   int64  `json:"session_id"`
		EventCount  int64  `json:"event_count"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	machines := map[string]int{}
	var quokka int64
	for _, s := range list {
		machines[s.Machine]++
		if s.DisplayName == "quokka" {
			quokka = s.ID
		}
	}
	if machines["laptop"] != 5 || machines["desktop"] != 3 || quokka == 0 {
		t.Fatalf("team ls: %v, quokka %d", machines, quokka)
	}
	// The text listing shows a teammate's control characters as escapes.
	if _, text, _ := run(t, dir, "team", "ls"); strings.ContainsAny(text, "\x1b\x07") || !strings.Contains(text, "evil") {
		t.Fatalf("team ls prints control characters:\n%q", text)
	}
	// team show --json is show --json of the same session.
	_, teamShow, _ := run(t, dir, "team", "show", "--json", strconvI(quokka))
	_, localShow, _ := run(t, dir, "show", "--store", paths[0], "--json", "4")
	if teamShow != localShow || !strings.Contains(teamShow, "quokka bug") {
		t.Fatalf("team show:\n%s\nlocal show:\n%s", teamShow, localShow)
	}
	code, out, _ = run(t, dir, "team", "search", "--json", "quokka")
	if code != 0 || !strings.Contains(out, `"snippet":"find the quokka bug"`) || !strings.HasPrefix(out, `{"more":false,`) {
		t.Fatalf("team search: %d %s", code, out)
	}
	code, out, _ = run(t, dir, "team", "stats", "--by", "machine", "--json")
	if code != 0 || !strings.Contains(out, `"key": "desktop"`) || !strings.Contains(out, `"cost_estimated": false`) {
		t.Fatalf("team stats: %d %s", code, out)
	}
	dst := filepath.Join(dir, "mine.azs")
	code, out, errOut = run(t, dir, "team", "pull", "--store", dst, strconvI(quokka))
	if code != 0 || !strings.Contains(out, "as S1") {
		t.Fatalf("team pull: %d %s %s", code, out, errOut)
	}
	code, out, _ = run(t, dir, "team", "pull", "--store", dst, strconvI(quokka))
	if code != 0 || !strings.Contains(out, "already in") {
		t.Fatalf("second team pull: %d %s", code, out)
	}
	_, pulled, _ := run(t, dir, "show", "--store", dst, "--json", "1")
	if pulled != localShow {
		t.Fatalf("pulled session shows\n%s\nwant\n%s", pulled, localShow)
	}
	// Errors: no URL, a server that is down.
	t.Setenv("LAZULI_PG", "")
	if code, _, errOut := run(t, dir, "team", "ls"); code != ExitUsage || !strings.Contains(errOut, "LAZULI_PG") {
		t.Fatalf("team ls without a URL: %d %s", code, errOut)
	}
	srv.Stop()
	if code, _, errOut := run(t, dir, "team", "ls", "--pg", url); code != ExitError || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "server not reachable") {
		t.Fatalf("team ls with the server down: %d %q", code, errOut)
	}
}

func strconvI(n int64) string { return strconv.FormatInt(n, 10) }
