package native

// This file keeps, with each file's record, what an import needs to go on
// from the end of the lines it read: the Claude transcript parser's state
// there (claude.TranscriptState). With it a later import reads only the
// lines appended since, after checking that the part already imported is
// unchanged (checkRecord: the length, the first 16 KiB and the 16 KiB before
// the end, which hold the newline the record ended on). Without it (a
// Codex rollout, a record written before, a state that does not decode)
// the file is read from its start, as before.

import (
	"bytes"
	"compress/flate"
	"encoding/gob"

	"github.com/lazuli-app/lazuli/agents/claude"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// resumeClaudeV1 starts an encoded Claude transcript state (gob, then
// deflate); another layout, or another meaning of claude.TranscriptState's
// fields, gets another prefix, and an unknown one is not used.
const resumeClaudeV1 = "claude-transcript-v1\n"

// encodeResume encodes a Claude transcript parser's state; nil when it
// cannot. Deflate halves it: it is mostly tool call and message ids,
// kept with every record (3.7 KB a file on the native workload before).
func encodeResume(s claude.TranscriptState) []byte {
	var buf bytes.Buffer
	buf.WriteString(resumeClaudeV1)
	zw, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil || gob.NewEncoder(zw).Encode(s) != nil || zw.Close() != nil {
		return nil
	}
	return buf.Bytes()
}

// decodeResume decodes what encodeResume encoded.
func decodeResume(b []byte) (claude.TranscriptState, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(resumeClaudeV1))
	if !ok {
		return claude.TranscriptState{}, false
	}
	var s claude.TranscriptState
	zr := flate.NewReader(bytes.NewReader(rest))
	defer zr.Close()
	if gob.NewDecoder(zr).Decode(&s) != nil {
		return claude.TranscriptState{}, false
	}
	return s, true
}

// resumedFeeder returns a feeder that goes on from resume (see
// ResumeTranscriptParser) and the usage anchors counted before it; ok is
// false when resume cannot be used for a file of format f.
func resumedFeeder(f parse.Format, opts parse.Options, resume []byte) (nativeFeeder, map[codec.Kind]int, bool) {
	if f != parse.FormatClaudeTranscript || len(resume) == 0 {
		return nil, nil, false
	}
	s, ok := decodeResume(resume)
	if !ok {
		return nil, nil, false
	}
	before := make(map[codec.Kind]int, len(s.Usage.Counts))
	for k, n := range s.Usage.Counts {
		before[k] = n
	}
	return &claudeFeeder{p: claude.ResumeTranscriptParser(opts, s)}, before, true
}
