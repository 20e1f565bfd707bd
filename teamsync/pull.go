package teamsync

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// errTooBig stops reading the rows of a session larger than a pull takes.
var errTooBig = errors.New("too big")

// Limits of what a pull reads from the server before checking it: the
// stored payloads (zstd frames, smaller than the MaxLoadBytes they may
// decode to) and the rows.
const (
	maxPullBytes = 2 * store.MaxLoadBytes
	maxPullRows  = 1 << 20
)

// ErrRefused reports a team session Pull does not copy: its row or one of
// its events is not what a push writes (a teammate's damaged store, or a
// hostile server). The message names the session and the reason, on one
// line; the local store is left as it was.
var ErrRefused = errors.New("not pulled")

// Pull copies team session id into dst as a drop or merge does: a new
// session id, the payloads byte for byte as they were pushed (redacted
// ones as redacted), compactions kept; a session dst already holds
// exactly is not copied again (dup). Undecodable events pushed without
// their bytes are left out.
//
// Everything is checked before anything is written, and a session with
// one bad row is not pulled at all (ErrRefused): a damaged session row; an
// event with a NULL column, a seq below 1 or out of 1..n order, or that
// store.CheckRaw refuses (a payload that does not decode within the load
// limits, a kind or char_len that is not its event's, a worktree that is
// a path). A redacted event's char_len is its redacted text's size.
func (db *DB) Pull(ctx context.Context, id int64, dst *store.Store) (localID int64, dup bool, err error) {
	s, err := db.Session(ctx, id)
	if err != nil {
		return 0, false, err
	}
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("team session %d %s: %s: %w", id, quoteLine(s.DisplayName), fmt.Sprintf(format, args...), ErrRefused)
	}
	if s.Damaged != "" {
		return 0, false, refuse("its row is damaged (%s)", s.Damaged)
	}
	all, err := db.rawEvents(ctx, s, true)
	if errors.Is(err, errTooBig) {
		return 0, false, refuse("its events hold more than %d MiB or %d rows, more than a session can load", maxPullBytes>>20, maxPullRows)
	}
	if err != nil {
		return 0, false, err
	}
	raw := make([]store.RawEvent, 0, len(all))
	for i, e := range all {
		switch {
		case e.seq == nil || e.kind == nil || e.charLen == nil:
			return 0, false, refuse("its event %d has a NULL seq, kind or char_len", i+1)
		case *e.seq != int64(i+1):
			return 0, false, refuse("its event %d has seq %d: seqs must run from 1 without gaps", i+1, *e.seq)
		case len(e.data) == 0: // an undecodable event pushed without its bytes
			continue
		}
		r := store.RawEvent{Seq: *e.seq, Kind: codec.Kind(*e.kind), CharLen: *e.charLen, Data: e.data}
		if e.redacted { // the pusher kept the original text's size
			if ev, err := store.DecodePayload(e.data); err == nil {
				r.CharLen = codec.CharLen(ev)
			}
		}
		raw = append(raw, r)
	}
	comps, err := db.Compactions(ctx, s)
	if err != nil {
		return 0, false, err
	}
	localID, dup, err = dst.Transfer().ImportRaw(ctx, store.RawSession{Session: s.Store(), Events: raw, Compactions: comps})
	if errors.Is(err, store.ErrRefused) { // ImportRaw checks it (store.CheckRaw) before it writes
		return 0, false, refuse("%v", err)
	}
	return localID, dup, err
}

// quoteLine quotes a team field for a one-line message: escaped as Go
// quotes it (no control character reaches the terminal), at most 80 runes.
func quoteLine(s string) string {
	if r := []rune(s); len(r) > 80 {
		return strconv.Quote(string(r[:80])) + "…"
	}
	return strconv.Quote(s)
}
