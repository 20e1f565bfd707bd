package export

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/store"
)

// itemKind selects how one part of a transcript is rendered.
type itemKind uint8

const (
	itemUser       itemKind = iota // a prompt
	itemAssistant                  // assistant text (markdown)
	itemPlan                       // a plan (markdown) under its name
	itemTool                       // a tool call
	itemResult                     // a tool result
	itemHook                       // a hook and its output
	itemComplete                   // the end of a turn
	itemNotice                     // a one-line notice: Init, Command, ModelSwitch, banners
	itemCompaction                 // the summary of the conversation before it
	itemThinking                   // the agent's thinking before an event (shown folded)
)

// item is one rendered part of a transcript, the same for every format.
type item struct {
	kind  itemKind
	seq   int64  // the event's seq; a compaction's AfterSeq
	title string // tool, plan or hook name; notice or completion text
	param string // a tool call's key parameter, one line
	text  string // prompt, markdown, result, hook output, summary
	code  string // a tool call's command or input JSON
	lang  string // the code's language: "sh" or "json"
	diff  []editdiff.Line
	note  string // a Write's line count and purpose; why a result is cut
	full  string // what ingestion shortened: the whole output or Write content
	ok    bool   // a successful completion; a result that is not an error
	// reply marks the first item of the agent's reply to a prompt (or of
	// a transcript that does not start with one).
	reply bool
}

// Limits of what Markdown and HTML show of one tool result, hook output
// or diff; the JSON export keeps everything.
const (
	maxResultLines = 200
	fullLines      = 5000 // of a full output behind its fold
	maxResultBytes = 64 << 10
	maxDiffLines   = 500
)

// items turns src into the parts a transcript shows, with each compaction
// after the last event its summary covers, as the window shows them.
func items(src Source) []item {
	out := make([]item, 0, len(src.Events)+len(src.Compactions))
	c := 0
	inReply := false
	add := func(it item) {
		switch it.kind {
		case itemUser:
			inReply = false
		case itemAssistant, itemPlan, itemTool, itemResult, itemThinking:
			if !inReply {
				it.reply, inReply = true, true
			}
		}
		out = append(out, it)
	}
	for i := range src.Events {
		se := &src.Events[i]
		for c < len(src.Compactions) && src.Compactions[c].AfterSeq < se.Seq {
			add(compactionItem(src.Compactions[c]))
			c++
		}
		for _, th := range se.Thinking {
			add(item{kind: itemThinking, seq: se.Seq, title: "Thinking", text: th})
		}
		it := eventItem(se.Seq, &se.Event)
		it.full = src.Full[se.Seq]
		add(it)
	}
	for ; c < len(src.Compactions); c++ {
		add(compactionItem(src.Compactions[c]))
	}
	return out
}

func compactionItem(c store.Compaction) item {
	return item{kind: itemCompaction, seq: c.AfterSeq, title: "Summary of earlier conversation", text: c.Summary}
}

// eventItem renders one event.
func eventItem(seq int64, e *codec.Event) item {
	it := item{seq: seq}
	switch e.Kind {
	case codec.KindUserMessage:
		it.kind, it.text = itemUser, e.Content
	case codec.KindAssistantText:
		it.kind, it.text = itemAssistant, e.Text
	case codec.KindPlan:
		it.kind, it.title, it.text = itemPlan, e.Name, e.Content
	case codec.KindToolCall:
		toolItem(&it, e)
	case codec.KindToolResult:
		it.kind, it.title, it.ok = itemResult, e.ToolName, !e.IsError
		it.text, it.note = truncate(e.Content, maxResultLines)
	case codec.KindHook:
		it.kind, it.title = itemHook, e.Name
		it.text, it.note = truncate(e.Output, maxResultLines)
	case codec.KindComplete:
		it.kind, it.ok, it.title = itemComplete, e.Success, completeText(e)
	default:
		it.kind, it.title = itemNotice, e.Notice()
	}
	return it
}

// toolItem fills it for a tool call: an Edit or Write as a diff, a
// command as shell code, anything else as its key parameter plus its input
// JSON when that holds more.
func toolItem(it *item, e *codec.Event) {
	it.kind, it.title = itemTool, e.ToolName
	it.param = codec.ToolKeyParam(e.ToolName, e.Input)
	isEdit := false
	switch e.ToolName {
	case "Edit", "edit", "Write", "write", "apply_patch":
		isEdit = true
	default:
		// apply_patch run through the shell: the patch's files, not the
		// command, are what the call is about.
		if isEdit = editdiff.IsShellPatch(e.Input); isEdit {
			it.param = patchPaths(e.Input)
		}
	}
	if isEdit {
		if d := editdiff.Unified(e.ToolName, editdiff.Deref(e.FilePath), e.Input); d != nil {
			it.diff, it.note = capDiff(d)
			if it.param == "" {
				it.param = editdiff.Deref(e.FilePath)
			}
			if e.ToolName == "Write" || e.ToolName == "write" {
				it.note = joinNote(writeNote(e.Input), it.note)
			}
			return
		}
		if e.ToolName == "Write" || e.ToolName == "write" {
			it.note = writeNote(e.Input)
			return
		}
	}
	if cmd, ok := inputCommand(e.Input); ok {
		it.code, it.lang, it.param = cmd, "sh", ""
		return
	}
	if in := display.ToolInput(e.Input); in != "" && (it.param == "" || inputMembers(e.Input) > 1) {
		it.code, it.lang = in, "json"
	}
}

// patchPaths names the files of a shell call's apply_patch envelope.
func patchPaths(input json.RawMessage) string {
	var paths []string
	for _, f := range editdiff.Files("", input) {
		paths = append(paths, f.Path)
	}
	return strings.Join(paths, ", ")
}

// inputCommand returns the "command" of a tool input: a string, or an
// argv array (Codex) joined with spaces.
func inputCommand(input json.RawMessage) (string, bool) {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil || len(in.Command) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(in.Command, &s) == nil {
		return s, s != ""
	}
	var argv []string
	if json.Unmarshal(in.Command, &argv) == nil && len(argv) > 0 {
		return strings.Join(argv, " "), true
	}
	return "", false
}

// inputMembers counts the members of an input object.
func inputMembers(input json.RawMessage) int {
	var obj map[string]json.RawMessage
	if json.Unmarshal(input, &obj) != nil {
		return 0
	}
	return len(obj)
}

// writeNote is what a Write call kept after ingestion: "12 lines · purpose".
func writeNote(input json.RawMessage) string {
	var in struct {
		Lines   *int64 `json:"_lines"`
		Purpose string `json:"_purpose"`
	}
	_ = json.Unmarshal(input, &in) // a malformed input has no note
	var parts []string
	if in.Lines != nil {
		parts = append(parts, display.Plural(int(*in.Lines), "line"))
	}
	if in.Purpose != "" {
		parts = append(parts, in.Purpose)
	}
	return strings.Join(parts, " · ")
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " · " + b
}

// capDiff keeps the first maxDiffLines lines of a diff.
func capDiff(d []editdiff.Line) ([]editdiff.Line, string) {
	if len(d) <= maxDiffLines {
		return d, ""
	}
	return d[:maxDiffLines], "… " + display.Plural(len(d)-maxDiffLines, "more line")
}

// fullPart is what Markdown and HTML show of a full output: its first
// fullLines lines, cleaned, the note on what was cut, and its line count.
func fullPart(full string) (text, note, lines string) {
	text, note = truncate(full, fullLines)
	n := strings.Count(strings.TrimRight(full, "\n"), "\n") + 1
	return cleanText(text), note, display.Plural(n, "line")
}

// truncate keeps the first maxLines lines of s, and at most maxResultBytes
// bytes (cut at a line, or at a character in one huge line); note says
// what was left out.
func truncate(s string, maxLines int) (string, string) {
	cut, lines := len(s), 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			lines++
			if lines == maxLines && i+1 < len(s) {
				cut = i + 1
				break
			}
		}
	}
	if cut > maxResultBytes {
		cut = maxResultBytes
		if nl := strings.LastIndexByte(s[:cut], '\n'); nl > 0 {
			cut = nl + 1
		}
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	if cut >= len(s) {
		return s, ""
	}
	if cut > 0 && s[cut-1] != '\n' {
		return s[:cut], "… " + display.Count(len(s)-cut) + " more bytes"
	}
	rest := strings.Count(s[cut:], "\n")
	if !strings.HasSuffix(s, "\n") {
		rest++
	}
	return s[:cut], "… " + display.Plural(rest, "more line")
}

// completeText is a Complete row: "✓ Completed in 12.3s · $0.0123".
func completeText(e *codec.Event) string {
	verb := "✓ Completed"
	if !e.Success {
		verb = "✗ Failed"
	}
	return fmt.Sprintf("%s in %s · $%.4f", verb, formatDuration(int64(e.DurationMS)), e.CostUSD)
}

// formatDuration formats milliseconds for people: "850ms", "12.3s",
// "4m 05s", "2h 03m".
func formatDuration(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1fs", float64(ms)/1000)
	case ms < 3_600_000:
		s := ms / 1000
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	}
	m := ms / 60_000
	return fmt.Sprintf("%dh %02dm", m/60, m%60)
}

// firstLine is s's first non-empty line, cut to maxRunes with "…", marked
// with "…" when more lines follow.
func firstLine(s string, maxRunes int) string {
	s = strings.TrimSpace(s)
	more := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, more = strings.TrimSpace(s[:i]), true
	}
	if utf8.RuneCountInString(s) > maxRunes {
		r := []rune(s)
		return string(r[:maxRunes-1]) + "…"
	}
	if more {
		return s + " …"
	}
	return s
}

// ansi matches terminal escape sequences (colours, cursor moves) that
// commands print and a file cannot show.
var ansi = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)
})

// cleanText makes s fit in a text file: valid UTF-8, no terminal escape
// sequences, no control characters but tabs and newlines ("\r\n" becomes
// "\n").
func cleanText(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansi().ReplaceAllString(s, "")
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return -1
		}
		return r
	}, strings.ReplaceAll(s, "\r\n", "\n"))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }
