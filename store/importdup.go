package store

import (
	"bytes"
	"context"

	"github.com/lazuli-app/lazuli/codec"
)

// FindImported returns a session of worktree named name and created at
// created whose stored events are exactly what storing events would store:
// the same transcript imported before. ok is false when there is none.
// Only sessions with that name and time are read, so a store without such
// a session costs one listing.
func (tr TransferService) FindImported(ctx context.Context, worktree, name, created string, events []codec.Event) (_ Session, ok bool, _ error) {
	if !tr.s.Exists() {
		return Session{}, false, nil
	}
	list, err := tr.s.Sessions().List(ctx, worktree)
	if err != nil {
		return Session{}, false, err
	}
	var want [][]byte // the payloads storing events would write, lazily
	for _, sess := range list {
		if sess.Name != name || sess.Created != created || sess.Worktree != worktree {
			continue
		}
		if want == nil {
			if want, err = importPayloads(events); err != nil {
				return Session{}, false, err
			}
		}
		same, err := tr.holdsPayloads(ctx, sess, want)
		if err != nil {
			return Session{}, false, err
		}
		if same {
			return sess, true, nil
		}
	}
	return Session{}, false, nil
}

// importPayloads returns the JSON payloads of the rows that storing events
// writes, by the rules of encodeEvent.
func importPayloads(events []codec.Event) ([][]byte, error) {
	out := make([][]byte, 0, len(events))
	for _, e := range events {
		c, keep := storedForm(e)
		if !keep {
			continue
		}
		js, _, err := codec.EncodeCompacted(c)
		if err != nil {
			return nil, err
		}
		out = append(out, js)
	}
	return out, nil
}

// holdsPayloads reports whether sess's rows decode to exactly want.
func (tr TransferService) holdsPayloads(ctx context.Context, sess Session, want [][]byte) (bool, error) {
	c, err := tr.readCopy(ctx, sess)
	if err != nil || len(c.events) != len(want) {
		return false, err
	}
	for i, e := range c.events {
		js, err := tr.s.codec.Payload(e.data)
		if err != nil {
			return false, err
		}
		if !bytes.Equal(js, want[i]) {
			return false, nil
		}
	}
	return true, nil
}
