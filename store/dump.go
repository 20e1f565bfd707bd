package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// DumpPrompt is the next prompt the dump's context entries are built for.
const DumpPrompt = "NEXT PROMPT"

// Dump is the canonical dump of a store, the format of the golden
// fixtures' X.dump.json (shared/fixtures/azs/README.md): what AZUREAL's own
// read functions show for the file. Fields are declared in key order so the
// JSON keys come out sorted.
type Dump struct {
	Compactions []DumpCompaction `json:"compactions"` // every row, by id
	// Context maps a session id to BuildContextPrompt(Compactions().Context(id),
	// DumpPrompt), or null when Compactions().Context is nil.
	Context map[string]*string `json:"context"`
	// Events maps a session id to its loaded, filtered events.
	Events map[string][]DumpEvent `json:"events"`
	// SchemaVersion is the version AZUREAL reports after opening the file
	// (its migration forces "3"); null when there is no store file.
	SchemaVersion *string       `json:"schema_version"`
	Sessions      []DumpSession `json:"sessions"` // in ListSessions order
}

// DumpCompaction is one compactions row in a Dump.
type DumpCompaction struct {
	AfterSeq  int64  `json:"after_seq"`
	Created   string `json:"created"`
	ID        int64  `json:"id"`
	SessionID int64  `json:"session_id"`
	Summary   string `json:"summary"`
}

// DumpEvent is one loaded event in a Dump: the stored row's seq, kind and
// char_len, and the event as decoded and filtered, in serde's JSON shape.
type DumpEvent struct {
	CharLen int64       `json:"char_len"`
	Event   codec.Event `json:"event"`
	Kind    codec.Kind  `json:"kind"`
	Seq     int64       `json:"seq"`
}

// DumpSession is one session in a Dump.
type DumpSession struct {
	CharsSinceCompaction int64             `json:"chars_since_compaction"`
	Completed            *bool             `json:"completed"`
	CostUSD              *codec.SerdeFloat `json:"cost_usd"`
	Created              string            `json:"created"`
	Damaged              string            `json:"damaged,omitempty"` // Session.Damage; never in AZUREAL's dumps
	DisplayName          string            `json:"display_name"`
	DurationMS           *uint64           `json:"duration_ms"` // the column as AZUREAL's list_sessions reads it: `as u64`
	EventCount           int64             `json:"event_count"`
	ID                   int64             `json:"id"`
	LastClaudeUUID       string            `json:"last_claude_uuid"`
	MessageCount         int64             `json:"message_count"`
	Name                 string            `json:"name"`
	Worktree             string            `json:"worktree"`
}

// Dump reads the whole store into its canonical dump.
func (s *Store) Dump(ctx context.Context) (Dump, error) {
	d := Dump{Compactions: []DumpCompaction{}, Context: map[string]*string{},
		Events: map[string][]DumpEvent{}, Sessions: []DumpSession{}}
	db, info, err := s.reader(ctx)
	if err != nil || db == nil {
		return d, wrapDump(err)
	}
	v := info.effectiveVersion()
	d.SchemaVersion = &v
	sessions, err := s.Sessions().List(ctx, "")
	if err != nil {
		return d, wrapDump(err)
	}
	for _, sess := range sessions {
		if err := s.dumpSession(ctx, &d, sess); err != nil {
			return d, wrapDump(err)
		}
	}
	comps, err := s.Compactions().where(ctx, "")
	if err != nil {
		return d, wrapDump(err)
	}
	for _, c := range comps {
		d.Compactions = append(d.Compactions, DumpCompaction{AfterSeq: c.AfterSeq, Created: c.Created,
			ID: c.ID, SessionID: c.SessionID, Summary: c.Summary})
	}
	return d, nil
}

// errorText is the last part of err's message: what went wrong, without
// the operations that led there.
func errorText(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ErrDamaged.Error()+": "); i >= 0 {
		return msg[i+len(ErrDamaged.Error())+2:]
	}
	return msg
}

func wrapDump(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("dump store: %w", err)
}

// dumpSession adds one session, its events and its context prompt to d.
func (s *Store) dumpSession(ctx context.Context, d *Dump, sess Session) error {
	d.Sessions = append(d.Sessions, dumpSessionRow(sess))
	key := strconv.FormatInt(sess.ID, 10)
	events, err := s.Events().All(ctx, sess.ID)
	if errors.Is(err, ErrDamaged) {
		// Marked in its sessions entry; the other sessions are dumped.
		if row := &d.Sessions[len(d.Sessions)-1]; row.Damaged == "" {
			row.Damaged = errorText(err)
		}
		d.Events[key], d.Context[key] = []DumpEvent{}, nil
		return nil
	}
	if err != nil {
		return err
	}
	d.Events[key] = dumpEvents(events)
	p, err := s.Compactions().Context(ctx, sess.ID)
	if errors.Is(err, ErrDamaged) {
		d.Context[key] = nil
		return nil
	}
	if err != nil {
		return err
	}
	if p != nil {
		prompt := codec.BuildContextPrompt(p, DumpPrompt)
		d.Context[key] = &prompt
	} else {
		d.Context[key] = nil
	}
	return nil
}

// dumpSessionRow is sess as a dump lists it.
func dumpSessionRow(sess Session) DumpSession {
	return DumpSession{
		CharsSinceCompaction: sess.CharsSinceCompaction, Completed: sess.Completed,
		CostUSD: (*codec.SerdeFloat)(sess.CostUSD), Created: sess.Created, DisplayName: sess.DisplayName(),
		DurationMS: asU64(sess.DurationMS), EventCount: sess.EventCount, ID: sess.ID,
		LastClaudeUUID: sess.LastClaudeUUID, MessageCount: sess.MessageCount,
		Name: sess.Name, Worktree: sess.Worktree, Damaged: sess.Damage,
	}
}

// dumpEvents is events as a dump lists them.
func dumpEvents(events []StoredEvent) []DumpEvent {
	list := make([]DumpEvent, len(events))
	for i, e := range events {
		list[i] = DumpEvent{CharLen: e.CharLen, Event: e.Event, Kind: e.Kind, Seq: e.Seq}
	}
	return list
}

// JSON returns the dump as the fixtures have it: pretty-printed the way
// serde_json does (two-space indentation, a trailing newline), the keys of
// every object sorted byte-wise at every depth, inside events too, strings
// escaped as serde_json escapes them, and numbers in serde's form (a float
// always with a '.' or an exponent).
func (d Dump) JSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSONValue(&b, d, ""); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteDump writes the store's canonical dump to w, byte for byte as
// Dump followed by JSON would, one session at a time: it holds one
// session's events (at most MaxLoadBytes decoded, see Load) rather than
// the whole store's. The context prompts come before the events in the
// JSON (its keys are sorted), so each session is loaded twice; the decoded
// rows cache makes the second load of a small session cheap.
func (s *Store) WriteDump(ctx context.Context, w io.Writer) error {
	db, info, err := s.reader(ctx)
	if err != nil || db == nil {
		if err != nil {
			return wrapDump(err)
		}
		return writeJSONValue(w, Dump{Compactions: []DumpCompaction{}, Context: map[string]*string{},
			Events: map[string][]DumpEvent{}, Sessions: []DumpSession{}}, "")
	}
	sessions, err := s.Sessions().List(ctx, "")
	if err != nil {
		return wrapDump(err)
	}
	keys := make([]string, len(sessions))
	byKey := make(map[string]Session, len(sessions))
	for i, sess := range sessions {
		keys[i] = strconv.FormatInt(sess.ID, 10)
		byKey[keys[i]] = sess
	}
	sort.Strings(keys) // encoding/json's order of map keys
	comps, err := s.Compactions().where(ctx, "")
	if err != nil {
		return wrapDump(err)
	}
	dumpComps := make([]DumpCompaction, 0, len(comps))
	for _, c := range comps {
		dumpComps = append(dumpComps, DumpCompaction{AfterSeq: c.AfterSeq, Created: c.Created,
			ID: c.ID, SessionID: c.SessionID, Summary: c.Summary})
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("{\n  \"compactions\": ")
	if err := writeJSONValue(bw, dumpComps, "  "); err != nil {
		return err
	}
	bw.WriteString(",\n  \"context\": ")
	damaged := map[int64]string{} // sessions whose events cannot be loaded
	err = writeJSONMap(bw, keys, func(key string) (any, error) {
		p, err := s.Compactions().Context(ctx, byKey[key].ID)
		if errors.Is(err, ErrDamaged) {
			return (*string)(nil), nil // marked in its sessions entry
		}
		if err != nil || p == nil {
			return (*string)(nil), err
		}
		return codec.BuildContextPrompt(p, DumpPrompt), nil
	})
	if err != nil {
		return wrapDump(err)
	}
	bw.WriteString(",\n  \"events\": ")
	err = writeJSONMap(bw, keys, func(key string) (any, error) {
		events, err := s.Events().All(ctx, byKey[key].ID)
		if errors.Is(err, ErrDamaged) {
			damaged[byKey[key].ID] = errorText(err)
			return []DumpEvent{}, nil // the other sessions are dumped
		}
		if err != nil {
			return nil, err
		}
		return dumpEvents(events), nil
	})
	if err != nil {
		return wrapDump(err)
	}
	bw.WriteString(",\n  \"schema_version\": ")
	if err := writeJSONValue(bw, info.effectiveVersion(), "  "); err != nil {
		return err
	}
	bw.WriteString(",\n  \"sessions\": ")
	list := make([]DumpSession, len(sessions))
	for i, sess := range sessions {
		list[i] = dumpSessionRow(sess)
		if reason, ok := damaged[sess.ID]; ok && list[i].Damaged == "" {
			list[i].Damaged = reason
		}
	}
	if err := writeJSONValue(bw, list, "  "); err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeJSONMap writes a JSON object of keys (sorted) at the dump's second
// level, each value made by value when it is written.
func writeJSONMap(w *bufio.Writer, keys []string, value func(string) (any, error)) error {
	if len(keys) == 0 {
		_, err := w.WriteString("{}")
		return err
	}
	w.WriteString("{")
	for i, key := range keys {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n    " + strconv.Quote(key) + ": ")
		v, err := value(key)
		if err != nil {
			return err
		}
		if err := writeJSONValue(w, v, "    "); err != nil {
			return err
		}
	}
	_, err := w.WriteString("\n  }")
	return err
}

// writeJSONValue writes v as JSON indented as part of a dump, at the level
// of prefix (two spaces a level), in the fixtures' form (see codec.SortedJSONAt),
// without a trailing newline unless it is the whole dump (prefix "").
func writeJSONValue(w io.Writer, v any, prefix string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode dump: %w", err)
	}
	out, err := codec.SortedJSONAt(b.Bytes(), len(prefix)/2)
	if err != nil {
		return fmt.Errorf("encode dump: %w", err)
	}
	if prefix == "" {
		out = append(out, '\n') // the whole dump: with its newline
	}
	_, err = w.Write(out)
	return err
}

// asU64 is Rust's `v as u64` of an i64 (the bits kept), nil for nil.
func asU64(v *int64) *uint64 {
	if v == nil {
		return nil
	}
	u := uint64(*v)
	return &u
}
