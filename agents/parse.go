// Package agents runs the coding-agent CLIs (Claude Code, Codex, Gemini CLI,
// Qwen Code, OpenCode, Pi and Copilot CLI) and reads what they write. It
// holds the backends and their models, one turn streamed into the store
// (RunTurn), the run workflow shared by `lazuli run` and the prompt box
// (RunWorkflow), compaction (CompactSession, the Compactor worker) and its
// prompts, sub-agent sessions, and reading a
// transcript of any format (ParseFile, ReadTranscript, StoreTranscript),
// the parser picked by format. It never imports Fyne.
//
// The parsers live beneath it: agents/parse (what they share), agents/claude
// and agents/codex; native history import is agents/native, the built-in
// summarizer agents/summary.
//
// Parsers are not safe for concurrent use; each run or file gets its own.
package agents

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/lazuli-app/lazuli/agents/claude"
	"github.com/lazuli-app/lazuli/agents/codex"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// NewParser returns a parser for format f, which must not be FormatAuto.
func NewParser(f parse.Format, opts parse.Options) (parse.Parser, error) {
	switch f {
	case parse.FormatClaudeStream:
		return claude.NewStreamParser(opts), nil
	case parse.FormatClaudeTranscript:
		return claude.NewTranscriptParser(opts), nil
	case parse.FormatCodexExec:
		return codex.NewExecParser(opts), nil
	case parse.FormatCodexRollout:
		return codex.NewRolloutParser(opts), nil
	}
	if s, ok := parse.Spec(f); ok {
		return s.New(opts), nil
	}
	return nil, fmt.Errorf("no parser for format %q", f)
}

// ParseFile parses the transcript at path. With FormatAuto the format is
// detected from the file's first lines. It fails with ErrNotTranscript when
// the file holds no line of any known format.
func ParseFile(path string, f parse.Format, opts parse.Options) ([]codec.Event, parse.Format, parse.Stats, error) {
	if err := store.CheckRegular(path); err != nil {
		return nil, "", parse.Stats{}, err // a FIFO would block the open and the read
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, "", parse.Stats{}, err
	}
	defer fh.Close()
	return Parse(fh, f, opts)
}

// LoadTranscript parses the transcript at path into the events to store:
// injected context is filtered out as on every ingestion path (spec §6.4),
// and a file whose every line was malformed fails with ErrNotTranscript.
// Sub-agents' work is left out; ReadTranscript keeps it.
func LoadTranscript(path string, f parse.Format, opts parse.Options) ([]codec.Event, parse.Format, parse.Stats, error) {
	t, err := ReadTranscript(path, f, opts)
	return t.Events, t.Format, t.Stats, err
}

// Transcript is a parsed transcript: the main thread's events, their token
// usage, and the work of each sub-agent its stream carried (Claude
// stream-json), in the order the sub-agents began. A sub-agent's usage is
// not separate: Claude's result line counts the whole run, sub-agents
// included, and that usage is placed on the main thread's events.
type Transcript struct {
	Format    parse.Format
	Events    []codec.Event
	Usage     []store.Usage // Event indexes Events
	Subagents []parse.SubagentEvents
	Stats     parse.Stats
}

// ReadTranscript is LoadTranscript keeping sub-agents' work, each
// sub-agent's events filtered like the main thread's, and the main
// thread's token usage.
func ReadTranscript(path string, f parse.Format, opts parse.Options) (Transcript, error) {
	fh, err := os.Open(path)
	if err != nil {
		return Transcript{}, err
	}
	defer fh.Close()
	t, p, err := parseTranscript(fh, f, opts)
	if err != nil {
		return t, err
	}
	if len(t.Events) == 0 && len(t.Subagents) == 0 && t.Stats.Malformed > 0 {
		return Transcript{Format: t.Format, Stats: t.Stats}, fmt.Errorf("no %s lines found: %w", t.Format, parse.ErrNotTranscript)
	}
	t.Events = store.FilterInjectedEvents(t.Events)
	if up, ok := p.(parse.UsageParser); ok {
		t.Usage = parse.PlaceUsage(t.Events, up.Usage())
	}
	return t, nil
}

// Parse parses a whole transcript from r; see ParseFile.
func Parse(r io.Reader, f parse.Format, opts parse.Options) ([]codec.Event, parse.Format, parse.Stats, error) {
	t, _, err := parseTranscript(r, f, opts)
	return t.Events, t.Format, t.Stats, err
}

// parseTranscript parses a whole transcript from r, sub-agents included;
// it also returns the parser, for its usage.
func parseTranscript(r io.Reader, f parse.Format, opts parse.Options) (Transcript, parse.Parser, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if f == parse.FormatAuto {
		head, err := parse.PeekLines(br, 200)
		if err != nil {
			return Transcript{}, nil, err
		}
		if f, err = parse.DetectFormat(head); err != nil {
			return Transcript{}, nil, err
		}
	}
	p, err := NewParser(f, opts)
	if err != nil {
		return Transcript{}, nil, err
	}
	t := Transcript{Format: f}
	subs := newSubagentCollector()
	err = parse.EachLine(br, func(line []byte, tooLong bool) {
		if tooLong {
			parse.FeedTooLong(p)
			return
		}
		t.Events = append(t.Events, p.Feed(line)...)
		subs.take(p)
	})
	t.Events = append(t.Events, p.Finish()...)
	subs.take(p)
	t.Subagents, t.Stats = subs.list, p.Stats()
	return t, p, err
}

// subagentCollector gathers what a SubagentSource hands out, one entry per
// sub-agent.
type subagentCollector struct {
	list  []parse.SubagentEvents
	index map[string]int
}

func newSubagentCollector() *subagentCollector {
	return &subagentCollector{index: map[string]int{}}
}

// take adds what p parsed of sub-agents since the last call.
func (c *subagentCollector) take(p parse.Parser) {
	src, ok := p.(parse.SubagentSource)
	if !ok {
		return
	}
	for _, s := range src.TakeSubagents() {
		if i, ok := c.index[s.ToolUseID]; ok {
			c.list[i].Events = append(c.list[i].Events, s.Events...)
			continue
		}
		c.index[s.ToolUseID] = len(c.list)
		c.list = append(c.list, s)
	}
}
