package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/teamsync"
)

// runSync is `lazuli sync push`: it sends the selected stores to the team
// database.
func runSync(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] != "push" {
		return usagef("want: lazuli sync push")
	}
	fs := newFlags("sync push", env)
	var sel storeSelection
	sel.bind(fs)
	pg := fs.String("pg", "", "team database URL (default $LAZULI_PG)")
	machine := fs.String("machine", "", "machine label (default the host name)")
	asJSON := fs.Bool("json", false, "print JSON")
	allow := fs.Bool("allow-secrets", false, "send texts with secrets as they are")
	watch := fs.Bool("watch", false, "push again whenever a store changes, until interrupted")
	if err := parseNoArgs(fs, args[1:]); err != nil {
		return err
	}
	url, err := teamsync.ResolveURL(*pg)
	if err != nil {
		return usagef("%v", err)
	}
	if *machine == "" {
		if *machine, err = os.Hostname(); err != nil {
			return fmt.Errorf("machine label: %w (give --machine NAME)", err)
		}
	}
	who := os.Getenv("USER")
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	stores, err := sel.open(ctx, env)
	if err != nil {
		return err
	}
	defer closeStores(stores)
	db, err := teamsync.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	push := func() error {
		var reports []teamsync.Report
		for _, st := range stores {
			o := teamsync.Options{Machine: *machine, User: who, Repository: repositoryOf(st.Path()), AllowSecrets: *allow,
				Insight: teamsync.IndexInsight{}}
			rep, err := teamsync.Push(ctx, db, st, o)
			if err != nil {
				return err
			}
			reports = append(reports, rep)
		}
		if *asJSON {
			return writeJSON(env.Stdout, reports)
		}
		for _, r := range reports {
			printPush(env, r)
		}
		return nil
	}
	if !*watch {
		return push()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return teamsync.Watch(ctx, storePaths(stores), teamsync.WatchInterval, push)
}

func storePaths(stores []*store.Store) []string {
	out := make([]string, len(stores))
	for i, st := range stores {
		out[i] = st.Path()
	}
	return out
}

// printPush prints what a push did, and what it redacted.
func printPush(env *Env, r teamsync.Report) {
	fmt.Fprintf(env.Stdout, "%s: %d session(s), %d event(s), %d compaction(s) sent (store %s)\n",
		printable.Line(r.Store), r.Sessions, r.Events, r.Compactions, r.StoreID)
	if r.Forked {
		fmt.Fprintf(env.Stdout, "  the database held another copy of this store: pushed as a new store\n")
	}
	if n := len(r.Redactions); n > 0 {
		byRule := map[string]int{}
		var rules []string
		for _, x := range r.Redactions {
			if byRule[x.Rule] == 0 {
				rules = append(rules, x.Rule)
			}
			byRule[x.Rule]++
		}
		var parts []string
		for _, rule := range rules {
			parts = append(parts, fmt.Sprintf("%s ×%d", rule, byRule[rule]))
		}
		fmt.Fprintf(env.Stdout, "  redacted %d secret(s) before sending: %s (--allow-secrets sends them)\n", n, strings.Join(parts, ", "))
	}
}

// repositoryOf names the repository a store's worktree belongs to: the
// folder holding the git common directory, else the worktree folder.
func repositoryOf(storePath string) string {
	dir := filepath.Dir(storePath)
	if filepath.Base(dir) == ".azureal" {
		dir = filepath.Dir(dir)
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if err == nil {
		common := strings.TrimSpace(string(out))
		if filepath.Base(common) == ".git" {
			return filepath.Base(filepath.Dir(common))
		}
		return strings.TrimSuffix(filepath.Base(common), ".git")
	}
	return filepath.Base(dir)
}

// runTeam is `lazuli team ls|show|search|stats|pull`.
func runTeam(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		return usagef("want ls, show, search, stats or pull")
	}
	sub, args := args[0], args[1:]
	fs := newFlags("team "+sub, env)
	pg := fs.String("pg", "", "team database URL (default $LAZULI_PG)")
	asJSON := fs.Bool("json", false, "print JSON")
	var (
		page              pageFlags
		by, since         *string
		storeArg          *string
		repo, wt, machine *string
	)
	switch sub {
	case "ls":
		repo = fs.String("repository", "", "only this repository")
		wt = fs.String("worktree", "", "only this worktree (branch)")
		machine = fs.String("machine", "", "only this machine")
	case "search":
		page.bind(fs, "hits")
	case "stats":
		by = fs.String("by", "day", "day, worktree, repository, machine, user, session, model or backend")
		since = fs.String("since", "", "only sessions created since DATE (YYYY-MM-DD) or Nd")
	case "pull":
		storeArg = fs.String("store", "", "store file or folder to pull into")
	case "show":
	default:
		return usagef("unknown team command %q (want ls, show, search, stats or pull)", sub)
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	url, err := teamsync.ResolveURL(*pg)
	if err != nil {
		return usagef("%v", err)
	}
	needOne := func() (int64, error) {
		if len(pos) != 1 {
			return 0, usagef("want one team SESSION number")
		}
		return ParseSessionID(pos[0])
	}
	var id int64
	switch sub {
	case "show", "pull":
		if id, err = needOne(); err != nil {
			return err
		}
	case "search":
		if strings.TrimSpace(strings.Join(pos, " ")) == "" {
			return usagef("missing QUERY")
		}
	default:
		if len(pos) > 0 {
			return usagef("unexpected argument %q", pos[0])
		}
	}
	var day string
	if since != nil {
		if day, err = sinceDay(*since, time.Now()); err != nil {
			return usagef("%v", err)
		}
	}
	db, err := teamsync.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	switch sub {
	case "ls":
		return teamList(ctx, env, db, teamsync.Filter{Repository: *repo, Worktree: *wt, Machine: *machine}, *asJSON)
	case "show":
		return teamShow(ctx, env, db, id, *asJSON)
	case "search":
		return teamSearch(ctx, env, db, strings.Join(pos, " "), page, *asJSON)
	case "stats":
		rows, err := db.Stats(ctx, *by, day)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, rows)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tSESSIONS\tTURNS\tINPUT\tOUTPUT\tCOST")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t$%.2f\n", printable.Line(r.Key), r.Sessions, r.Turns, r.Input, r.Output, r.CostUSD)
		}
		return tw.Flush()
	}
	// pull
	path, err := StorePath(env.Dir, *storeArg)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	local, dup, err := db.Pull(ctx, id, st)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.Stdout, map[string]any{"team_id": id, "session_id": local, "duplicate": dup, "store": path})
	}
	if dup {
		fmt.Fprintf(env.Stdout, "team session %d is already in %s as S%d\n", id, printable.Line(path), local)
	} else {
		fmt.Fprintf(env.Stdout, "pulled team session %d into %s as S%d\n", id, printable.Line(path), local)
	}
	return nil
}

// sinceDay turns --since (YYYY-MM-DD or Nd) into a day; "" for none.
func sinceDay(s string, now time.Time) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	var n int
	if _, err := fmt.Sscanf(s, "%dd", &n); err == nil && strings.HasSuffix(s, "d") && n > 0 {
		return now.UTC().AddDate(0, 0, -n).Format(time.DateOnly), nil
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return "", fmt.Errorf("--since %q: want YYYY-MM-DD or Nd (7d, 30d)", s)
	}
	return s, nil
}

func teamList(ctx context.Context, env *Env, db *teamsync.DB, f teamsync.Filter, asJSON bool) error {
	list, err := db.List(ctx, f)
	if err != nil {
		return err
	}
	if asJSON {
		if list == nil {
			list = []teamsync.Session{}
		}
		return writeJSON(env.Stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stderr, "no team sessions")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TEAM\tSTATUS\tNAME\tREPOSITORY\tWORKTREE\tMACHINE\tUSER\tCREATED\tMSGS\tEVENTS")
	for _, s := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", s.ID, statusText(s.Store()), printable.Line(s.DisplayName),
			printable.Line(s.Repository), printable.Line(s.Worktree), printable.Line(s.Machine), printable.Line(s.User),
			printable.Line(s.Created), s.MessageCount, s.EventCount)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range list {
		teamDamageLine(env, s)
	}
	return nil
}

// teamDamageLine says on stderr that a team session's row is damaged and
// why, unless it is sound.
func teamDamageLine(env *Env, s teamsync.Session) {
	if s.Damaged != "" {
		fmt.Fprintf(env.Stderr, "team session %d is damaged: %s (a row Lazuli never writes; it cannot be pulled)\n", s.ID, printable.Line(s.Damaged))
	}
}

func teamShow(ctx context.Context, env *Env, db *teamsync.DB, id int64, asJSON bool) error {
	s, events, _, err := db.Transcript(ctx, id)
	if err != nil {
		return err
	}
	if asJSON {
		return writeEventsJSON(env.Stdout, events)
	}
	fmt.Fprintf(env.Stdout, "team session %d · %s · %s · %s\n", s.ID, printable.Line(s.Repository), printable.Line(s.Machine), printable.Line(s.User))
	printTranscript(env.Stdout, s.Store(), events)
	teamDamageLine(env, s)
	return nil
}

func teamSearch(ctx context.Context, env *Env, db *teamsync.DB, query string, page pageFlags, asJSON bool) error {
	if err := page.check(); err != nil {
		return err
	}
	opt := search.Options{Limit: page.limit, Offset: page.offset} // no budget: the whole answer
	res, err := db.Search(ctx, query, opt)
	if errors.Is(err, search.ErrEmptyQuery) || errors.Is(err, search.ErrShortQuery) || errors.Is(err, search.ErrLongQuery) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	if res.Note != "" {
		fmt.Fprintln(env.Stderr, res.Note)
	}
	if asJSON {
		return writeSearchJSON(env.Stdout, res, opt)
	}
	printHits(env, res, query, opt)
	return nil
}
