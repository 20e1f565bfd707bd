package parse

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// Format names one of the transcript formats Lazuli reads.
type Format string

// The formats (see ../shared/formats/transcript-formats.md): A, B, C and D.
const (
	FormatAuto             Format = "auto"
	FormatClaudeStream     Format = "claude-stream"     // A: claude -p --output-format stream-json stdout
	FormatClaudeTranscript Format = "claude-transcript" // B: ~/.claude/projects/<enc>/<id>.jsonl
	FormatCodexExec        Format = "codex-exec"        // C: codex exec --json stdout
	FormatCodexRollout     Format = "codex-rollout"     // D: ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl
)

// Formats lists the four formats built in; AllFormats adds the agents'.
var Formats = []Format{FormatClaudeStream, FormatClaudeTranscript, FormatCodexExec, FormatCodexRollout}

// FormatSpec is a format an agent's parser package adds (from its init,
// with RegisterFormat): Gemini CLI's chats, Qwen Code's, ….
type FormatSpec struct {
	Format Format
	// Detect reports whether a JSON object line is of the format. It is
	// asked before the built-in formats, so it must not claim their lines.
	Detect func(o Object) bool
	// New returns a parser of the format.
	New func(opts Options) Parser
	// Refines, when set, is the format whose shape this one's lines have,
	// but for the few its Detect knows (Qwen Code's stream-json is
	// Claude's, but for its init line): an input with lines of both is of
	// this one, the other's votes counting for it.
	Refines Format
}

// specs are the registered formats, in registration order; filled by
// init functions, read-only afterwards.
var specs []FormatSpec

// RegisterFormat adds a format; it is called from init only.
func RegisterFormat(s FormatSpec) {
	for _, f := range AllFormats() {
		if f == s.Format {
			panic("parse: format registered twice: " + string(f))
		}
	}
	specs = append(specs, s)
}

// Spec returns the registered format f.
func Spec(f Format) (FormatSpec, bool) {
	for _, s := range specs {
		if s.Format == f {
			return s, true
		}
	}
	return FormatSpec{}, false
}

// AllFormats lists every concrete format, built in and registered, for
// help texts and flag validation.
func AllFormats() []Format {
	out := append([]Format(nil), Formats...)
	for _, s := range specs {
		out = append(out, s.Format)
	}
	return out
}

// LookupFormat returns the Format named s.
func LookupFormat(s string) (Format, error) {
	if s == "" || s == string(FormatAuto) {
		return FormatAuto, nil
	}
	names := []string{string(FormatAuto)}
	for _, f := range AllFormats() {
		if string(f) == s {
			return f, nil
		}
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// ErrNotTranscript reports input that is not an agent transcript in any
// format Lazuli knows.
var ErrNotTranscript = errors.New("not an agent transcript")

// MaxLineSize is the longest line a parser accepts. Longer lines are counted
// as malformed and skipped without being held in memory.
const MaxLineSize = 64 << 20

// Parser turns the lines of one format into store events, incrementally, so
// the same code serves a live process and a file on disk.
type Parser interface {
	// Feed parses one line, without its line terminator, and returns the
	// events it completes. Blank and malformed lines are counted and skipped.
	Feed(line []byte) []codec.Event
	// Finish returns the events held back until the end of the input.
	Finish() []codec.Event
	// Stats reports what was seen so far.
	Stats() Stats
}

// Stats counts what a parser saw.
type Stats struct {
	Lines     int   // lines fed, blank ones included
	Malformed int   // lines that were not valid JSON objects, or too long
	BadLines  []int // 1-based numbers of the first malformed lines (at most 20)
	Ignored   int   // valid JSON lines of a type the parser does not map
}

// NoteMalformed records a malformed line (the current one, s.Lines).
func (s *Stats) NoteMalformed() {
	s.Malformed++
	if len(s.BadLines) < 20 {
		s.BadLines = append(s.BadLines, s.Lines)
	}
}

// Options configure a parser.
type Options struct {
	// Model is the model name a Codex exec parser reports in Init
	// (the codex CLI does not print it).
	Model string
	// ClaudeHome is the ~/.claude folder, where the Claude transcript parser
	// finds plan files; "" means the user's home folder.
	ClaudeHome string
}
