package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/store"
)

func runList(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("ls", env)
	storeArg := fs.String("store", "", "store file or folder")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	st, err := openStore(ctx, env, *storeArg)
	if err != nil {
		return err
	}
	defer st.Close()
	sessions, err := st.ListSessions(ctx, "")
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]export.JSONSession, 0, len(sessions))
		for _, s := range sessions {
			out = append(out, export.SessionJSON(s))
		}
		return writeJSON(env.Stdout, out)
	}
	if len(sessions) == 0 {
		fmt.Fprintf(env.Stderr, "no sessions in %s\n", st.Path())
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tNAME\tWORKTREE\tCREATED\tMSGS\tEVENTS\tCONTEXT")
	for _, s := range sessions {
		fmt.Fprintf(tw, "S%d\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", s.ID, statusText(s), s.DisplayName(),
			s.Worktree, s.Created, s.MessageCount, s.EventCount, meterText(s.CharsSinceCompaction))
	}
	return tw.Flush()
}

// statusText is the completion badge with its duration (spec §3.5).
func statusText(s store.Session) string {
	if s.Completed == nil {
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
	pct := float64(chars) / store.CompactionThreshold * 100
	if pct > 100 {
		pct = 100
	}
	return fmt.Sprintf("%.0f%%", pct)
}

// writeJSON prints v as indented JSON without HTML escaping.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
