package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// JSON export identification: the "format" and "version" members.
const (
	JSONFormatName = "lazuli-export"
	JSONVersion    = 1
)

// JSONSession is the "session" member of a JSON export: the session row
// as `lazuli ls --json` shows it.
type JSONSession struct {
	ID                   int64             `json:"id"`
	Name                 string            `json:"name"`
	DisplayName          string            `json:"display_name"`
	Worktree             string            `json:"worktree"`
	Created              string            `json:"created"`
	Completed            *bool             `json:"completed"`
	DurationMS           *int64            `json:"duration_ms"`
	CostUSD              *codec.SerdeFloat `json:"cost_usd"` // 0.0, not 0, as in AZUREAL's dumps
	LastClaudeUUID       string            `json:"last_claude_uuid"`
	EventCount           int64             `json:"event_count"`
	MessageCount         int64             `json:"message_count"`
	CharsSinceCompaction int64             `json:"chars_since_compaction"` // -1: unknown (damaged)
	// Damaged says why the session cannot be read as it should (see
	// store.Session.Damage); absent for a sound session.
	Damaged string `json:"damaged,omitempty"`
}

// SessionJSON is s as JSON exports and `lazuli ls --json` show it.
func SessionJSON(s store.Session) JSONSession {
	return JSONSession{
		ID: s.ID, Name: s.Name, DisplayName: s.DisplayName(), Worktree: s.Worktree, Created: s.Created,
		Completed: s.Completed, DurationMS: s.DurationMS, CostUSD: (*codec.SerdeFloat)(s.CostUSD), LastClaudeUUID: s.LastClaudeUUID,
		EventCount: s.EventCount, MessageCount: s.MessageCount, CharsSinceCompaction: s.CharsSinceCompaction,
		Damaged: s.Damage,
	}
}

// JSONCompaction is one element of the "compactions" member.
type JSONCompaction struct {
	ID       int64  `json:"id"`
	AfterSeq int64  `json:"after_seq"`
	Summary  string `json:"summary"`
	Created  string `json:"created"`
}

// JSONEvent is one element of the "events" member: Event is the event in
// AZUREAL's serde JSON, as stored (after the read-time filter), which
// store.DecodeEventJSON reads back.
type JSONEvent struct {
	Seq   int64           `json:"seq"`
	Kind  codec.Kind      `json:"kind"`
	Event json.RawMessage `json:"event"`
	// Full is the whole tool output or Write content that ingestion
	// shortened in Event (store.FullTextTable); absent when none was kept.
	Full string `json:"full,omitempty"`
	// Thinking is the agent's thinking that came right before the event
	// (store.ThinkingTable), never part of the conversation; absent when
	// there was none.
	Thinking []string `json:"thinking,omitempty"`
}

// JSONDocument is a whole JSON export.
type JSONDocument struct {
	Format      string           `json:"format"`  // JSONFormatName
	Version     int              `json:"version"` // JSONVersion
	Redactions  int              `json:"redactions"`
	Session     JSONSession      `json:"session"`
	Compactions []JSONCompaction `json:"compactions"`
	Events      []JSONEvent      `json:"events"`
}

// renderJSON writes src as one JSONDocument, indented, with one event per
// line so that the file reads and diffs well.
func renderJSON(w *bufio.Writer, src Source) error {
	s := src.Session
	head := struct {
		Format      string           `json:"format"`
		Version     int              `json:"version"`
		Redactions  int              `json:"redactions"`
		Session     JSONSession      `json:"session"`
		Compactions []JSONCompaction `json:"compactions"`
	}{
		Format: JSONFormatName, Version: JSONVersion, Redactions: src.Redactions,
		Session:     SessionJSON(s),
		Compactions: make([]JSONCompaction, 0, len(src.Compactions)),
	}
	for _, c := range src.Compactions {
		head.Compactions = append(head.Compactions, JSONCompaction{ID: c.ID, AfterSeq: c.AfterSeq, Summary: c.Summary, Created: c.Created})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(head); err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	// Reopen the object after its last member to append "events".
	headJSON := bytes.TrimSuffix(bytes.TrimRight(b.Bytes(), "\n"), []byte("}"))
	w.Write(bytes.TrimRight(headJSON, "\n"))
	w.WriteString(",\n  \"events\": [")
	line := make([]byte, 0, 1024)
	for i, se := range src.Events {
		js, err := codec.EncodeEventJSON(se.Event)
		if err != nil {
			return fmt.Errorf("encode event %d: %w", se.Seq, err)
		}
		line = line[:0]
		if i > 0 {
			line = append(line, ',')
		}
		line = fmt.Appendf(line, "\n    {\"seq\": %d, \"kind\": ", se.Seq)
		line = codec.AppendJSONString(line, string(se.Kind))
		line = append(line, ", \"event\": "...)
		line = append(line, js...)
		if full, ok := src.Full[se.Seq]; ok && full != "" {
			line = append(line, ", \"full\": "...)
			line = codec.AppendJSONString(line, full)
		}
		if len(se.Thinking) > 0 {
			line = append(line, ", \"thinking\": ["...)
			for j, th := range se.Thinking {
				if j > 0 {
					line = append(line, ", "...)
				}
				line = codec.AppendJSONString(line, th)
			}
			line = append(line, ']')
		}
		line = append(line, '}')
		w.Write(line)
	}
	if len(src.Events) > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString("]\n}\n")
	return nil
}
