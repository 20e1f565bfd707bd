package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

func runList(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("ls", env)
	storeArg := fs.String("store", "", "store file or folder")
	asJSON := fs.Bool("json", false, "print JSON")
	all := fs.Bool("all", false, "include archived sessions")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	st, err := openStore(ctx, env, *storeArg)
	if err != nil {
		return err
	}
	defer st.Close()
	sessions, err := st.Sessions().List(ctx, "")
	if err != nil {
		return err
	}
	sessions, flags, err := withFlags(ctx, st, sessions, *all)
	if err != nil {
		return err
	}
	if *asJSON {
		agentOf, err := sessionAgents(ctx, st, sessions)
		if err != nil {
			return err
		}
		out := make([]lsJSON, 0, len(sessions))
		for _, s := range sessions {
			out = append(out, lsJSON{JSONSession: export.SessionJSON(s), Pinned: flags[s.ID].Pinned(), Archived: flags[s.ID].Archived(),
				Agent: agentOf[s.ID]})
		}
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
		reportDamage(env.Stderr, sessions)
		return nil
	}
	if len(sessions) == 0 {
		fmt.Fprintf(env.Stderr, "no sessions in %s\n", st.Path())
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tNAME\tWORKTREE\tCREATED\tMSGS\tEVENTS\tCONTEXT")
	for _, s := range sessions {
		fmt.Fprintf(tw, "S%d\t%s\t%s%s\t%s\t%s\t%d\t%d\t%s\n", s.ID, statusText(s), flagMarks(flags[s.ID]), printable.Line(s.DisplayName()),
			printable.Line(s.Worktree), printable.Line(s.Created), s.MessageCount, s.EventCount, meterText(s.CharsSinceCompaction))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	reportDamage(env.Stderr, sessions)
	return nil
}

// reportDamage says on stderr which sessions are damaged and why: they are
// listed with the others, marked, and lazuli check tells more.
func reportDamage(w io.Writer, sessions []store.Session) {
	for _, s := range sessions {
		damageLine(w, s.ID, s.Damage)
	}
}

// damageLine says that session id is damaged and why, unless reason is "".
func damageLine(w io.Writer, id int64, reason string) {
	if reason != "" {
		fmt.Fprintf(w, "S%d is damaged: %s (lazuli check tells more)\n", id, printable.Line(reason))
	}
}

// statusText is the completion badge with its duration (spec §3.5).
func statusText(s store.Session) string {
	if s.Damage != "" {
		return "⚠ damaged"
	}
	if s.Completed == nil || s.Unfinished { // Unfinished: turns followed the last Complete
		return "○"
	}
	badge := "✓"
	if !*s.Completed {
		badge = "✗"
	}
	if s.DurationMS != nil {
		badge += " " + display.DurationBadge(*s.DurationMS)
	}
	return badge
}

// meterText is the context meter as a percentage of the compaction threshold.
func meterText(chars int64) string {
	if chars < 0 {
		return "?" // unknown: a damaged session's char_len values do not add up
	}
	pct := float64(chars) / store.CompactionThreshold * 100
	if pct > 100 {
		pct = 100
	}
	return fmt.Sprintf("%.0f%%", pct)
}

// writeJSON prints v as indented JSON without HTML escaping, with C1 and
// bidirectional controls escaped too (printable.NewJSONWriter).
func writeJSON(w io.Writer, v any) error {
	jw := printable.NewJSONWriter(w)
	enc := json.NewEncoder(jw)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return jw.Close()
}

// reportUnreadable says on stderr, in one line, which events the
// command's loads of st left out because they could not be read (AZUREAL
// leaves them out without a word), and nothing when all could be read.
func reportUnreadable(env *Env, st *store.Store) {
	if msg := store.UnreadableNotice(st.Unreadable()); msg != "" {
		fmt.Fprintln(env.Stderr, printable.Line(msg))
	}
}

// sessionAgents names each session's backend (agents.SessionBackend): its
// native history's agent, else its model's backend.
func sessionAgents(ctx context.Context, st *store.Store, sessions []store.Session) (map[int64]string, error) {
	ids := make([]int64, len(sessions))
	for i, s := range sessions {
		ids[i] = s.ID
	}
	facets, err := st.Sessions().Facets(ctx, ids)
	if err != nil {
		return nil, err
	}
	native, err := st.Native().Imports(ctx)
	if err != nil {
		return nil, err
	}
	nativeOf := map[int64]string{}
	for k, rec := range native {
		nativeOf[rec.SessionID] = k.Agent
	}
	out := make(map[int64]string, len(sessions))
	for _, s := range sessions {
		out[s.ID] = string(agents.SessionBackend(nativeOf[s.ID], facets[s.ID].Backend, facets[s.ID].Model, s.LastClaudeUUID))
	}
	return out, nil
}
