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
	f, err := st.Fork(ctx, parent.ID, *at, *name)
	if errors.Is(err, store.ErrNotPrompt) {
		return fmt.Errorf("S%d has no prompt at seq %d: a fork starts before one of its prompts", parent.ID, *at)
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
