package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

// forkJSON is what lazuli fork --json prints: the new session, and where
// it came from.
type forkJSON struct {
	export.JSONSession
	ParentID  int64 `json:"parent_id"`
	ParentSeq int64 `json:"parent_seq"`
}

func runFork(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("fork", env)
	storeArg := fs.String("store", "", "store file or folder")
	at := fs.Int64("at", 0, "the seq of the prompt to fork before")
	name := fs.String("name", "", "the new session's name")
	asJSON := fs.Bool("json", false, "print the new session as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one SESSION")
	}
	if *at < 1 {
		return usagef("--at SEQ is required: the seq of one of the session's prompts (lazuli show --json lists them)")
	}
	st, parent, err := openSession(ctx, env, *storeArg, pos[0], false)
	if err != nil {
		return err
	}
	defer st.Close()
	f, err := st.Forks().Create(ctx, parent.ID, *at, *name)
	if errors.Is(err, store.ErrNotPrompt) {
		return fmt.Errorf("session S%d has no prompt at seq %d: a fork starts before one of its prompts", parent.ID, *at)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.Stdout, forkJSON{JSONSession: export.SessionJSON(f), ParentID: parent.ID, ParentSeq: *at})
	}
	fmt.Fprintf(env.Stdout, "S%d %s: %d event(s) of S%d before seq %d\n", f.ID, printable.Line(f.DisplayName()),
		f.EventCount, parent.ID, *at)
	return nil
}

// flagCommand is pin, unpin, archive or unarchive: it sets one mark of
// SESSION (store.FlagService.SetPinned, SetArchived) and says what it did.
func flagCommand(name, done string, set func(ctx context.Context, st *store.Store, id int64) error) func(context.Context, *Env, []string) error {
	return func(ctx context.Context, env *Env, args []string) error {
		fs := newFlags(name, env)
		storeArg := fs.String("store", "", "store file or folder")
		st, sess, err := parseSession(ctx, env, fs, storeArg, args, false)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := set(ctx, st, sess.ID); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "S%d %s %s\n", sess.ID, printable.Line(sess.DisplayName()), done)
		return nil
	}
}

func pinCommands() []command {
	pin := func(on bool) func(ctx context.Context, st *store.Store, id int64) error {
		return func(ctx context.Context, st *store.Store, id int64) error { return st.Flags().SetPinned(ctx, id, on) }
	}
	archive := func(on bool) func(ctx context.Context, st *store.Store, id int64) error {
		return func(ctx context.Context, st *store.Store, id int64) error { return st.Flags().SetArchived(ctx, id, on) }
	}
	return []command{
		{"pin", "[--store P] SESSION", "keep a session at the top of its group", flagCommand("pin", "pinned", pin(true))},
		{"unpin", "[--store P] SESSION", "unpin a session", flagCommand("unpin", "unpinned", pin(false))},
		{"archive", "[--store P] SESSION", "hide a session from the list without deleting it (ls --all shows it)", flagCommand("archive", "archived", archive(true))},
		{"unarchive", "[--store P] SESSION", "list an archived session again", flagCommand("unarchive", "unarchived", archive(false))},
	}
}

// lsJSON is one session of lazuli ls --json: the export's session object
// with its marks.
type lsJSON struct {
	export.JSONSession
	Pinned   bool   `json:"pinned"`
	Archived bool   `json:"archived"`
	Agent    string `json:"agent"` // the session's backend (agents.SessionBackend); "" when not known
}

// withFlags reads the sessions' marks and leaves out the archived
// sessions unless all is set.
func withFlags(ctx context.Context, st *store.Store, sessions []store.Session, all bool) ([]store.Session, map[int64]store.Flags, error) {
	flags, err := st.Flags().All(ctx)
	if err != nil || all {
		return sessions, flags, err
	}
	out := sessions[:0:0]
	for _, s := range sessions {
		if !flags[s.ID].Archived() {
			out = append(out, s)
		}
	}
	return out, flags, nil
}

// flagMarks is what ls prints before a marked session's name.
func flagMarks(f store.Flags) string {
	var m string
	if f.Pinned() {
		m += "[pinned] "
	}
	if f.Archived() {
		m += "[archived] "
	}
	return m
}
