package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// DumpPrompt is the next prompt the dump's context entries are built for.
const DumpPrompt = "NEXT PROMPT"

// Dump is the canonical dump of a store, the format of the golden
// fixtures' X.dump.json (shared/fixtures/azs/README.md): what AZUREAL's own
// read functions show for the file. Fields are declared in key order so the
// JSON keys come out sorted.
type Dump struct {
	Compactions []DumpCompaction `json:"compactions"` // every row, by id
	// Context maps a session id to BuildContextPrompt(BuildContext(id),
	// DumpPrompt), or null when BuildContext is nil.
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
	CharLen int64 `json:"char_len"`
	Event   Event `json:"event"`
	Kind    Kind  `json:"kind"`
	Seq     int64 `json:"seq"`
}

// DumpSession is one session in a Dump.
type DumpSession struct {
	CharsSinceCompaction int64    `json:"chars_since_compaction"`
	Completed            *bool    `json:"completed"`
	CostUSD              *float64 `json:"cost_usd"`
	Created              string   `json:"created"`
	DisplayName          string   `json:"display_name"`
	DurationMS           *int64   `json:"duration_ms"`
	EventCount           int64    `json:"event_count"`
	ID                   int64    `json:"id"`
	LastClaudeUUID       string   `json:"last_claude_uuid"`
	MessageCount         int64    `json:"message_count"`
	Name                 string   `json:"name"`
	Worktree             string   `json:"worktree"`
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
	sessions, err := s.ListSessions(ctx, "")
	if err != nil {
		return d, wrapDump(err)
	}
	for _, sess := range sessions {
		if err := s.dumpSession(ctx, &d, sess); err != nil {
			return d, wrapDump(err)
		}
	}
	comps, err := s.compactions(ctx, "")
	if err != nil {
		return d, wrapDump(err)
	}
	for _, c := range comps {
		d.Compactions = append(d.Compactions, DumpCompaction{AfterSeq: c.AfterSeq, Created: c.Created,
			ID: c.ID, SessionID: c.SessionID, Summary: c.Summary})
	}
	return d, nil
}

func wrapDump(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("dump store: %w", err)
}

// dumpSession adds one session, its events and its context prompt to d.
func (s *Store) dumpSession(ctx context.Context, d *Dump, sess Session) error {
	d.Sessions = append(d.Sessions, DumpSession{
		CharsSinceCompaction: sess.CharsSinceCompaction, Completed: sess.Completed,
		CostUSD: sess.CostUSD, Created: sess.Created, DisplayName: sess.DisplayName(),
		DurationMS: sess.DurationMS, EventCount: sess.EventCount, ID: sess.ID,
		LastClaudeUUID: sess.LastClaudeUUID, MessageCount: sess.MessageCount,
		Name: sess.Name, Worktree: sess.Worktree,
	})
	key := strconv.FormatInt(sess.ID, 10)
	events, err := s.LoadEvents(ctx, sess.ID)
	if err != nil {
		return err
	}
	list := make([]DumpEvent, len(events))
	for i, e := range events {
		list[i] = DumpEvent{CharLen: e.CharLen, Event: e.Event, Kind: e.Kind, Seq: e.Seq}
	}
	d.Events[key] = list
	p, err := s.BuildContext(ctx, sess.ID)
	if err != nil {
		return err
	}
	if p != nil {
		prompt := BuildContextPrompt(p, DumpPrompt)
		d.Context[key] = &prompt
	} else {
		d.Context[key] = nil
	}
	return nil
}

// JSON returns the dump pretty-printed with two-space indentation, without
// HTML escaping, and with a trailing newline, like the fixtures.
func (d Dump) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("encode dump: %w", err)
	}
	return b.Bytes(), nil
}
