package agentwork

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/internal/clicapture"
	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

// SeedOptions size the sessions a CLI is driven through.
type SeedOptions struct {
	Sessions int // transcripts used, in name order (10)
	Turns    int // prompts per session (3): the first starts it, the others continue it
	Actions  int // tool calls per turn at most (20)
}

func (o *SeedOptions) defaults() {
	if o.Sessions <= 0 {
		o.Sessions = 10
	}
	if o.Turns <= 0 {
		o.Turns = 3
	}
	if o.Actions <= 0 {
		o.Actions = 20
	}
}

// Transcripts returns the shared fixtures' real Claude main transcripts
// (B_*.jsonl of at least 1 KiB, no sub-agent file) with at least one
// prompt, derived, in name order.
func Transcripts(fixtures string, o SeedOptions) (map[string][]Turn, []string, error) {
	o.defaults()
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	out := map[string][]Turn{}
	var used []string
	for _, n := range names {
		if !strings.HasPrefix(n, "B_") || !strings.HasSuffix(n, ".jsonl") || strings.Contains(n, "subagents--") ||
			strings.Contains(n, "_agent-") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(fixtures, n))
		if err != nil {
			return nil, nil, err
		}
		if len(b) < 1024 {
			continue
		}
		if turns := Derive(b, o.Turns, o.Actions); actions(turns) >= minActions {
			out[n] = turns
			used = append(used, n)
		}
		if len(used) == o.Sessions {
			break
		}
	}
	return out, used, nil
}

// minActions is the tool calls a transcript's turns need to be used: a
// session without work is not the kind that fills a history.
const minActions = 5

func actions(turns []Turn) int {
	n := 0
	for _, t := range turns {
		n += len(t.Actions)
	}
	return n
}

// titleRoute answers the title requests some CLIs make beside the
// conversation.
var titleRoute = fakemodel.Route{Contains: "Generate a title for this conversation",
	Script: fakemodel.Script{fakemodel.Text("Review of the code")}}

// Script is turn j of a session as the model's script: padded with the
// tool steps of the turns before it (the continued conversation carries
// their calls, which place it after them), then one step per call and the
// reply.
func Script(a *Agent, p *Project, turns []Turn, j int) fakemodel.Script {
	var s fakemodel.Script
	n := 0
	for i := 0; i < j; i++ {
		for range turns[i].Actions {
			s = append(s, fakemodel.Text("(padding)"))
			n++
		}
	}
	for _, act := range turns[j].Actions {
		c := a.tool(p.Resolve(act, n))
		s = append(s, fakemodel.Step{Text: act.Text, Thinking: act.Thinking, Tools: []fakemodel.ToolCall{c}})
		n++
	}
	reply := turns[j].Reply
	if reply == "" {
		reply = "Done."
	}
	return append(s, fakemodel.Text(reply))
}

// Seed drives the CLI at cli through one session per transcript, in a
// HOME of its own below dir (emptied first) and a project copied from src,
// and returns that HOME. Each run is logged to log.
func Seed(ctx context.Context, a *Agent, cli, fixtures, src, dir string, o SeedOptions, log io.Writer) (string, error) {
	o.defaults()
	sessions, order, err := Transcripts(fixtures, o)
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	home := filepath.Join(dir, "home")
	p, err := NewProject(src, filepath.Join(dir, "proj"))
	if err != nil {
		return "", err
	}
	for _, name := range order {
		turns := sessions[name]
		for j, t := range turns {
			if err := runTurn(ctx, a, cli, home, p, Script(a, p, turns, j), t.Prompt, j > 0, log, name); err != nil {
				return "", err
			}
		}
	}
	return home, nil
}

func runTurn(ctx context.Context, a *Agent, cli, home string, p *Project, s fakemodel.Script, prompt string, cont bool,
	log io.Writer, name string) error {
	srv := fakemodel.New(s, titleRoute)
	defer srv.Close()
	env, err := a.env(srv, home)
	if err != nil {
		return err
	}
	start := time.Now()
	r, err := clicapture.RunCLI(ctx, cli, a.args(prompt, cont), env, p.Dir, 10*time.Minute)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", a.Name, name, err)
	}
	fmt.Fprintf(log, "%s %s (continue %v): exit %d, %d model requests of %d steps, %s\n", a.Name, name, cont, r.Code,
		len(srv.Model()), len(s), time.Since(start).Round(time.Millisecond))
	if r.Code != 0 {
		fmt.Fprintf(log, "  stderr: %.400s\n", r.Stderr)
	}
	return nil
}

// Key names a seed: the agent, the options and the generator's version,
// so a changed recipe is built anew.
func Key(a *Agent, o SeedOptions) string {
	o.defaults()
	h := fnvHex(fmt.Sprintf("%s|%d|%d|%d|%s", a.Name, o.Sessions, o.Turns, o.Actions, version))
	return a.Name + "-" + h
}

// version changes when the scripts change.
const version = "1"

func fnvHex(s string) string {
	var b [4]byte
	v := uint32(pick(s, 1<<31))
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	return hex.EncodeToString(b[:])
}
