package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lazuli-app/lazuli/codec"
)

// ImportRaw copies r into s as a new session, in one transaction, as Merge
// does: a session that exactly duplicates one already in s (same name,
// worktree, created, completion, event payloads and compactions) is not
// copied again; its id in s is returned with dup set. A session CheckRaw
// refuses is not copied at all (a *RefusedError): nothing is written.
func (tr TransferService) ImportRaw(ctx context.Context, r RawSession) (id int64, dup bool, err error) {
	if tr.s.readOnly {
		return 0, false, fmt.Errorf("import into %s: %w", tr.s.path, ErrReadOnly)
	}
	if err := CheckRaw(r); err != nil {
		return 0, false, err
	}
	c := sessionCopy{sess: r.Session, comps: r.Compactions}
	var msgs int64
	for _, e := range r.Events {
		data, err := tr.portablePayload(e.Data)
		if err != nil {
			return 0, false, fmt.Errorf("import: event %d: %w", e.Seq, err)
		}
		c.events = append(c.events, rawEvent{seq: e.Seq, charLen: e.CharLen, kind: string(e.Kind), data: data})
		if e.Kind == codec.KindUserMessage || e.Kind == codec.KindAssistantText {
			msgs++
		}
	}
	c.sess.EventCount, c.sess.MessageCount = int64(len(c.events)), msgs
	if tr.s.Exists() {
		mine, err := tr.s.Sessions().List(ctx, "")
		if err != nil {
			return 0, false, fmt.Errorf("import: %w", err)
		}
		want, err := tr.fingerprintCopy(c)
		if err != nil {
			return 0, false, fmt.Errorf("import: %w", err)
		}
		for _, m := range mine {
			if cheapKey(m) != cheapKey(c.sess) {
				continue
			}
			have, err := tr.fingerprint(ctx, m)
			if err != nil {
				return 0, false, fmt.Errorf("import: %w", err)
			}
			if have == want {
				return m.ID, true, nil
			}
		}
	}
	err = tr.s.writeTx(ctx, true, func(tx *sql.Tx) error {
		var err error
		id, err = c.insert(ctx, tx)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("import into %s: %w", tr.s.path, err)
	}
	return id, false, nil
}

// EncodePayload returns e's serde JSON compressed as the data column holds
// it, without ingestion-time compaction: for an event read from a store and
// then changed (a redacted copy), to be stored or sent elsewhere.
func (tr TransferService) EncodePayload(e codec.Event) ([]byte, error) {
	js, err := codec.EncodeEventJSON(e)
	if err != nil {
		return nil, err
	}
	cd, err := tr.s.encoders.get()
	if err != nil {
		return nil, err
	}
	defer tr.s.encoders.put(cd)
	return cd.Compress(js), nil
}

// DecodePayload decodes a stored data value read from elsewhere (a team
// database): a zstd frame, or a v1 file's plain JSON.
func DecodePayload(data []byte) (codec.Event, error) {
	cd, err := payloadCodecs.get()
	if err != nil {
		return codec.Event{}, err
	}
	defer payloadCodecs.put(cd)
	return cd.Decode(data)
}
