package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrJSONArray reports a transcript saved as one JSON array of messages
// (claude-code-action's execution output, for one) rather than as JSON
// Lines. Errors wrapping it also wrap ErrNotTranscript.
var ErrJSONArray = errors.New("JSON array, not JSON Lines")

// detectMaxArrayItems bounds the elements of a JSON array that are looked at.
const detectMaxArrayItems = 50

// Line types that identify each format (see transcript-formats.md).
var (
	detectExecTypes = map[string]bool{
		"thread.started": true, "turn.started": true, "turn.completed": true, "turn.failed": true,
		"item.started": true, "item.updated": true, "item.completed": true, "error": true,
	}
	detectRolloutTypes = map[string]bool{
		"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true,
	}
	detectStreamTypes = map[string]bool{
		"system": true, "assistant": true, "user": true, "result": true,
		"stream_event": true, "rate_limit_event": true,
	}
)

// DetectFormat returns the format of a transcript from its first lines
// (without line terminators). Every line that is a JSON object of a known
// shape votes for its format and the most votes win, ties going to the
// format voted for first:
//   - Codex rollout (D): type session_meta, response_item, event_msg,
//     turn_context or compacted, with a payload;
//   - Codex exec (C): type thread.started, turn.*, item.* or error;
//   - Claude transcript (B): a sessionId or parentUuid key, or a summary
//     (leafUuid) or file-history-snapshot line;
//   - Claude stream (A): type system, assistant, user, result, … with a
//     snake_case session_id (B never has one), or a result line;
//   - a format an agent's package registered (RegisterFormat), whose
//     Detect is asked first.
//
// A JSON array of such messages (claude-code-action saves its output so) is
// not read line by line: DetectFormat fails with an error wrapping both
// ErrNotTranscript and ErrJSONArray. When no line votes it fails with an
// error wrapping ErrNotTranscript that says why: empty input, a legacy
// Codex format, or no line of a known shape.
func DetectFormat(head [][]byte) (Format, error) {
	if f := detectArray(head); f != "" {
		return "", fmt.Errorf("%w: %w: the input is one JSON array of %s messages; convert it to one message per line with jq -c '.[]'",
			ErrNotTranscript, ErrJSONArray, f)
	}
	var b detectBallot
	nonBlank := 0
	for _, line := range head {
		line = bytes.TrimSpace(bytes.TrimPrefix(line, BOM))
		if len(line) == 0 {
			continue
		}
		nonBlank++
		if o, ok := DecodeObject(line); ok {
			b.vote(DetectLine(o))
		}
	}
	if f, ok := b.winner(); ok {
		return f, nil
	}
	return "", detectFailure(head, nonBlank)
}

// DetectLine returns the format a JSON object line belongs to, or "".
func DetectLine(o Object) Format {
	for _, s := range specs {
		if s.Detect(o) {
			return s.Format
		}
	}
	t := o.Str("type")
	_, hasParent := o["parentUuid"]
	switch {
	case detectRolloutTypes[t] && o.Has("payload"):
		return FormatCodexRollout
	case detectExecTypes[t]:
		return FormatCodexExec
	case o.Has("sessionId") || hasParent || t == "file-history-snapshot" ||
		(t == "summary" && o.Has("leafUuid")):
		return FormatClaudeTranscript
	case detectStreamTypes[t] && (o.Has("session_id") || t == "result"):
		return FormatClaudeStream
	}
	return ""
}

// detectBallot counts votes per format, remembering which came first.
type detectBallot struct {
	votes map[Format]int
	order []Format
}

// vote adds a vote for f; "" is no vote.
func (b *detectBallot) vote(f Format) {
	if f == "" {
		return
	}
	if b.votes == nil {
		b.votes = make(map[Format]int)
	}
	if b.votes[f] == 0 {
		b.order = append(b.order, f)
	}
	b.votes[f]++
}

// winner returns the format with the most votes; ok is false without votes.
// A format that refines another (FormatSpec.Refines) takes its votes.
func (b *detectBallot) winner() (Format, bool) {
	for _, s := range specs {
		if s.Refines != "" && b.votes[s.Format] > 0 && b.votes[s.Refines] > 0 {
			b.votes[s.Format] += b.votes[s.Refines]
			b.votes[s.Refines] = 0
		}
	}
	var best Format
	for _, f := range b.order {
		if best == "" || b.votes[f] > b.votes[best] {
			best = f
		}
	}
	return best, best != ""
}

// detectFailure explains why head is not a transcript.
func detectFailure(head [][]byte, nonBlank int) error {
	if nonBlank == 0 {
		return fmt.Errorf("%w: the input is empty", ErrNotTranscript)
	}
	if what := detectLegacyCodex(head); what != "" {
		return fmt.Errorf("%w: %s from before Codex 0.44 is not supported", ErrNotTranscript, what)
	}
	return fmt.Errorf("%w: none of the first %d non-blank lines is a JSON object of a known shape",
		ErrNotTranscript, nonBlank)
}

// detectArray returns the format the first elements of head vote for when
// head starts a JSON array of objects, and "" otherwise. JSON Lines never
// start with an array, so this goes before the line votes, which would
// count the one-line elements of a pretty-printed array.
func detectArray(head [][]byte) Format {
	text := bytes.TrimSpace(bytes.TrimPrefix(bytes.Join(head, []byte("\n")), BOM))
	if len(text) == 0 || text[0] != '[' {
		return ""
	}
	d := json.NewDecoder(bytes.NewReader(text))
	if _, err := d.Token(); err != nil {
		return ""
	}
	var b detectBallot
	for i := 0; i < detectMaxArrayItems && d.More(); i++ {
		var el json.RawMessage
		if d.Decode(&el) != nil {
			break // not JSON, or the head ends inside an element
		}
		if o, ok := DecodeObject(el); ok {
			b.vote(DetectLine(o))
		}
	}
	f, _ := b.winner()
	return f
}

// detectLegacyCodex names a legacy Codex format found in head, or "".
func detectLegacyCodex(head [][]byte) string {
	for _, line := range head {
		o, ok := DecodeObject(line)
		if !ok {
			continue
		}
		if _, ok := o["record_type"]; ok {
			return "a legacy Codex rollout"
		}
		if o.Obj("msg").Has("type") && o.Has("id") {
			return "legacy `codex exec --json` output"
		}
	}
	return ""
}

// BOM may start the first line of a file written on Windows.
var BOM = []byte("\xef\xbb\xbf")
