package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/chronicle"
	"github.com/lazuli-app/lazuli/printable"
)

// chronicleRunner runs the agent of a chronicle report; tests replace it.
var chronicleRunner chronicle.Runner = agents.ScratchRunner{}

func runChronicle(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usagef("want a report: standup, tips or improve")
	}
	report, err := chronicle.ParseReport(args[0])
	if err != nil {
		return usagef("%v", err)
	}
	fs := newFlags("chronicle", env)
	var sel storeSelection
	sel.bind(fs)
	since := fs.String("since", report.DefaultSince(), "24h, 7d, YYYY-MM-DD or all")
	agentArg := fs.String("agent", "auto", "auto, builtin or a backend: "+backendNames())
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseNoArgs(fs, args[1:]); err != nil {
		return err
	}
	win, err := chronicle.ParseSince(*since, time.Now())
	if err != nil {
		return usagef("--since: %v", err)
	}
	agent, err := chronicle.ParseAgent(*agentArg, agents.BackendNames())
	if err != nil {
		return usagef("--agent: %v", err)
	}
	xs, done, err := openInsight(ctx, env, &sel)
	if err != nil {
		return err
	}
	defer done()
	sources := make([]chronicle.Source, len(xs))
	for i, x := range xs {
		sources[i] = chronicle.Source{Store: x.Store(), Index: x}
	}
	opts := chronicle.Options{Window: win}
	if sel.project != "" {
		opts.ProjectDir = sel.project
		if !filepath.IsAbs(opts.ProjectDir) {
			opts.ProjectDir = filepath.Join(env.Dir, opts.ProjectDir)
		}
	}
	facts, err := chronicle.Gather(ctx, sources, report, opts)
	if err != nil {
		return err
	}
	res, err := chronicle.Write(ctx, sources, facts, agent, chronicleRunner)
	if err != nil {
		return err
	}
	if res.Fallback != "" {
		fmt.Fprintf(env.Stderr, "lazuli chronicle: written by the built-in writer (%s)\n", printable.Line(res.Fallback))
	}
	if len(res.Unresolved) > 0 {
		fmt.Fprintf(env.Stderr, "lazuli chronicle: citations that name no session or event of the stores, marked in the report: %s\n",
			strings.Join(res.Unresolved, " "))
	}
	if *asJSON {
		return writeJSON(env.Stdout, res)
	}
	_, err = io.WriteString(env.Stdout, printable.Text(res.Markdown))
	return err
}
