package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

func runContext(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("context", env)
	storeArg := fs.String("store", "", "store file or folder")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 {
		return usagef("want SESSION [PROMPT]")
	}
	prompt := strings.Join(pos[1:], " ")
	st, sess, err := openSession(ctx, env, *storeArg, pos[0], false)
	if err != nil {
		return err
	}
	defer st.Close()
	defer reportUnreadable(env, st) // before Close: runs first
	payload, err := st.Compactions().Context(ctx, sess.ID)
	if err != nil {
		return err
	}
	out := codec.BuildContextPrompt(payload, prompt)
	if isTerminal(env.Stdout) {
		// For reading: piped, the prompt stays byte-exact.
		out = printable.Text(out)
	}
	_, err = fmt.Fprint(env.Stdout, out)
	return err
}

func runCheck(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("check", env)
	storeArg := fs.String("store", "", "store file or folder")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	path, err := StorePath(env.Dir, *storeArg)
	if err != nil {
		return err
	}
	rep, err := store.CheckFile(ctx, path)
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(env.Stdout, rep); err != nil {
			return err
		}
	} else {
		printReport(env, rep)
	}
	if !rep.OK() {
		return fmt.Errorf("%s is damaged: %d problem(s) found", path, countErrors(rep))
	}
	return nil
}

func countErrors(rep store.Report) int {
	n := 0
	for _, f := range rep.Findings {
		if f.Severity == store.SeverityError {
			n++
		}
	}
	return n
}

// printReport writes the check report for people.
func printReport(env *Env, rep store.Report) {
	w := env.Stdout
	fmt.Fprintf(w, "store:          %s\n", rep.Path)
	if !rep.Exists {
		fmt.Fprintln(w, "                (no file: nothing to check)")
		return
	}
	fmt.Fprintf(w, "schema_version: %s\n", rep.SchemaVersion)
	fmt.Fprintf(w, "quick_check:    %s\n", strings.Join(rep.QuickCheck, "; "))
	fmt.Fprintf(w, "contents:       %d sessions, %d events, %d compactions\n", rep.Sessions, rep.Events, rep.Compactions)
	if u := rep.FullText; u != nil {
		fmt.Fprintf(w, "full text:      %s of full tool output and Write content for %s, %s in the file (Lazuli's own table)\n",
			display.Bytes(u.Bytes), display.Plural(u.Rows, "event"), display.Bytes(u.Compressed))
	}
	for _, f := range rep.Findings {
		where := ""
		if f.SessionID != 0 {
			where = fmt.Sprintf(" [S%d]", f.SessionID)
		}
		if f.Count > 1 {
			where += fmt.Sprintf(" (%d rows)", f.Count)
		}
		fmt.Fprintf(w, "%-8s %s%s: %s\n", f.Severity, f.Code, where, printable.Line(f.Message))
	}
	switch {
	case len(rep.Findings) == 0:
		fmt.Fprintln(w, "result:         OK, no problems found")
	case rep.OK():
		fmt.Fprintln(w, "result:         OK (no damage; see the notes above)")
	default:
		fmt.Fprintln(w, "result:         DAMAGED")
	}
}

// writeDump writes the store's dump: byte for byte when piped (it is
// AZUREAL's format), with C1 and bidirectional controls as JSON escapes on
// a terminal (printable.NewJSONWriter).
func writeDump(ctx context.Context, env *Env, st *store.Store) error {
	if !isTerminal(env.Stdout) {
		return st.WriteDump(ctx, env.Stdout)
	}
	jw := printable.NewJSONWriter(env.Stdout)
	if err := st.WriteDump(ctx, jw); err != nil {
		return err
	}
	return jw.Close()
}

func runDump(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("dump", env)
	storeArg := fs.String("store", "", "store file or folder")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	st, err := openExisting(ctx, env, *storeArg, false)
	if err != nil {
		return err
	}
	defer st.Close()
	defer reportUnreadable(env, st) // before Close: runs first
	if err := writeDump(ctx, env, st); err != nil {
		return err
	}
	sessions, err := st.Sessions().List(ctx, "") // the counts are cached: no second count
	if err != nil {
		return err
	}
	reportDamage(env.Stderr, sessions)
	return nil
}
