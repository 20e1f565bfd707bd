package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/project"
)

// sqlBudget is how long `lazuli sql` lets a query run.
const sqlBudget = 10 * time.Second

// sqlMemory is how much memory `lazuli sql` lets a query add: the process
// runs it alone (see insight.WithMemoryLimit).
const sqlMemory = 256 << 20

// openInsight opens the selected stores read-only and brings each one's
// insight index up to date.
func openInsight(ctx context.Context, env *Env, sel *storeSelection) ([]*insight.Index, func(), error) {
	stores, err := sel.open(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	var xs []*insight.Index
	done := func() {
		for _, x := range xs {
			x.Close()
		}
		closeStores(stores)
	}
	for _, st := range stores {
		x, err := insight.Open(ctx, st)
		if err != nil {
			done()
			return nil, nil, err
		}
		xs = append(xs, x)
		if _, err := x.Update(ctx); err != nil {
			done()
			return nil, nil, err
		}
	}
	return xs, done, nil
}

// parseSince reads --since: YYYY-MM-DD, or Nd for the last N days
// (today included); "" is all time.
func parseSince(s string, now time.Time) (string, error) {
	if s == "" {
		return "", nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err == nil && days > 0 {
			return now.UTC().AddDate(0, 0, 1-days).Format("2006-01-02"), nil
		}
	}
	if _, err := time.Parse("2006-01-02", s); err == nil {
		return s, nil
	}
	return "", usagef("--since wants YYYY-MM-DD or Nd (7d, 30d), not %q", s)
}

func runStats(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("stats", env)
	var sel storeSelection
	sel.bind(fs)
	since := fs.String("since", "", "only from this day: YYYY-MM-DD, 7d, 30d")
	by := fs.String("by", "", "group by day, model, backend, worktree or session")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	day, err := parseSince(*since, time.Now())
	if err != nil {
		return err
	}
	g := insight.Grouping(*by)
	switch g {
	case insight.ByTotal, insight.ByDay, insight.ByModel, insight.ByBackend, insight.ByWorktree, insight.BySession:
	default:
		return usagef("--by wants day, model, backend, worktree or session, not %q", *by)
	}
	xs, done, err := openInsight(ctx, env, &sel)
	if err != nil {
		return err
	}
	defer done()
	var lists [][]insight.Totals
	for _, x := range xs {
		t, err := x.Usage().Stats(ctx, insight.StatsQuery{By: g, Since: day})
		if err != nil {
			return err
		}
		lists = append(lists, t)
	}
	rows := insight.MergeTotals(lists...)
	if rows == nil {
		rows = []insight.Totals{}
	}
	if *asJSON {
		return writeJSON(env.Stdout, rows)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	head := "key"
	if g == insight.BySession {
		head = "session\tworktree"
	}
	fmt.Fprintf(tw, "%s\tsessions\tturns\tinput\toutput\tcache read\tcache write\treasoning\tcost USD\t\n", head)
	for _, r := range rows {
		key := r.Key
		if g == insight.BySession {
			key += "\t" + r.Worktree
		}
		cost := fmt.Sprintf("%.4f", r.CostUSD)
		if r.CostEstimated {
			cost = "~" + cost
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", key, r.Sessions, r.Turns, r.Input, r.Output,
			r.CacheRead, r.CacheWrite, r.Reasoning, cost)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.CostEstimated {
			fmt.Fprintf(env.Stderr, "~ marks a cost estimated from Lazuli's price table of %s (the CLI reported none)\n", insight.PricesDated)
			break
		}
	}
	return nil
}

// sessionRows runs `lazuli files` or `lazuli refs`: the rows that list
// returns from each selected store's index, for one session or all, as
// JSON or as a table whose rows line writes.
func sessionRows[R any](ctx context.Context, env *Env, args []string, name, head string, bind func(*flag.FlagSet),
	list func(*insight.Index, context.Context, int64) ([]R, error), line func(R) string) error {
	fs := newFlags(name, env)
	var sel storeSelection
	sel.bind(fs)
	if bind != nil {
		bind(fs) // the command's own flags
	}
	sess := fs.String("session", "", "only this session (S3 or 3)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	var id int64
	if *sess != "" {
		var err error
		if id, err = ParseSessionID(*sess); err != nil {
			return err
		}
	}
	xs, done, err := openInsight(ctx, env, &sel)
	if err != nil {
		return err
	}
	defer done()
	rows := []R{}
	for _, x := range xs {
		r, err := list(x, ctx, id)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	if *asJSON {
		return writeJSON(env.Stdout, rows)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		fmt.Fprintln(tw, line(r))
	}
	return tw.Flush()
}

func runFiles(ctx context.Context, env *Env, args []string) error {
	var recent *int
	bind := func(fs *flag.FlagSet) {
		recent = fs.Int("recent", 0, "only the N files changed last in each store (no reads), newest first")
	}
	list := func(x *insight.Index, ctx context.Context, id int64) ([]insight.FileRow, error) {
		switch {
		case *recent < 0:
			return nil, usagef("--recent wants a count of 1 or more")
		case *recent > 0:
			return x.Files().NewestChanges(ctx, id, *recent)
		}
		return x.Files().List(ctx, id)
	}
	return sessionRows(ctx, env, args, "files", "session\tworktree\taction\tcount\tpath\tevents", bind, list,
		func(f insight.FileRow) string {
			return fmt.Sprintf("%s\t%s\t%s\t%d\t%s\t#%d–#%d", f.Session, f.Worktree, f.Action, f.Count, f.Path, f.FirstSeq, f.LastSeq)
		})
}

func runRefs(ctx context.Context, env *Env, args []string) error {
	list := func(x *insight.Index, ctx context.Context, id int64) ([]insight.RefRow, error) {
		return x.Refs().List(ctx, id)
	}
	return sessionRows(ctx, env, args, "refs", "session\tworktree\tkind\tvalue\tfirst\turl", nil, list,
		func(r insight.RefRow) string {
			return fmt.Sprintf("%s\t%s\t%s\t%s\t#%d\t%s", r.Session, r.Worktree, r.Kind, r.Value, r.FirstSeq, r.URL)
		})
}

func runSQL(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("sql", env)
	var sel storeSelection
	sel.bind(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 1000, "at most this many rows")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want one QUERY")
	}
	xs, done, err := openInsight(ctx, env, &sel)
	if err != nil {
		return err
	}
	defer done() // the stores' copies, if any, are read until RunSQL returns
	var sources []insight.SQLSource
	for _, x := range xs {
		src, err := insight.SQLSourceOf(ctx, x)
		if err != nil {
			return err
		}
		sources = append(sources, src)
	}
	res, err := insight.RunSQL(ctx, sources, rest[0], *limit, sqlBudget, insight.WithMemoryLimit(sqlMemory))
	if err != nil {
		if errors.Is(err, insight.ErrRefused) || errors.Is(err, insight.ErrSQLTooLarge) {
			return fmt.Errorf("%s", project.OneLine(err))
		}
		return err
	}
	if *asJSON {
		return writeJSON(env.Stdout, res)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(res.Columns, "\t"))
	for _, cells := range res.Cells() {
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "\n", " ")
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if res.Truncated {
		fmt.Fprintf(env.Stderr, "truncated: more than %d rows (--limit N shows more)\n", *limit)
	}
	return nil
}
