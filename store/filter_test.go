package store_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

const (
	openTag  = codec.ContextOpenTag
	closeTag = codec.ContextCloseTag
	// hiddenAgents is a Codex AGENTS.md developer item, as in the vi fixture.
	hiddenAgents = "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nBe terse.\n</INSTRUCTIONS>\n" +
		"<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"
)

var (
	u = codec.UserMessage
	a = codec.AssistantText
)

// describeEvents renders events compactly for failure messages.
func describeEvents(evs []codec.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		switch e.Kind {
		case codec.KindUserMessage:
			out[i] = "User " + strconv.Quote(e.Content)
		case codec.KindAssistantText:
			out[i] = "Assistant " + strconv.Quote(e.Text)
		default:
			out[i] = string(e.Kind)
		}
	}
	return out
}

// filterInjectedCases is shared by the table test and the fuzz seeds.
var filterInjectedCases = []struct {
	name     string
	in, want []codec.Event
}{
	{"empty", nil, nil},
	{"20 legacy split rows",
		[]codec.Event{u("hidden developer instructions"), u("hidden transcript tail\n" + closeTag + "\n\nreal prompt"), a("answer")},
		[]codec.Event{u("real prompt"), a("answer")}},
	{"20 hidden codex row", []codec.Event{u(hiddenAgents), a("answer")}, []codec.Event{a("answer")}},
	{"20 fully injected row", []codec.Event{u(openTag + "\nctx\n" + closeTag + "\n\nreal prompt")}, []codec.Event{u("real prompt")}},
	{"25 codex split prompt",
		[]codec.Event{u("<permissions instructions>\nrules"), u("older transcript fragment"),
			u("last hidden chunk\n" + closeTag + "\n\nreal prompt"), a("answer")},
		[]codec.Event{u("real prompt"), a("answer")}},
	{"25 two plain users preserved", []codec.Event{u("one"), u("two"), a("x")}, []codec.Event{u("one"), u("two"), a("x")}},
	{"plain users flushed at end", []codec.Event{a("x"), u("one"), u("two")}, []codec.Event{a("x"), u("one"), u("two")}},
	{"inside mode drops until close",
		[]codec.Event{u(openTag + "\nfrag"), u("frag2"), u("frag3 " + closeTag + "\n\nreal"), a("ok")},
		[]codec.Event{u("real"), a("ok")}},
	{"inside mode ended by non-user event",
		[]codec.Event{u(openTag + "\nfrag"), u("lost"), a("ans"), u("after")},
		[]codec.Event{a("ans"), u("after")}},
	{"unclosed at end drops the tail", []codec.Event{a("x"), u(openTag + "\nctx"), u("tail")}, []codec.Event{a("x")}},
	{"opening tag clears pending plain messages",
		[]codec.Event{u("plain"), u("what is " + openTag + "?"), a("ans")}, []codec.Event{a("ans")}},
	{"blank visible prompt dropped", []codec.Event{u(openTag + closeTag + "\n\n \t\u3000"), a("ans")}, []codec.Event{a("ans")}},
	{"wrapped empty prompt dropped", []codec.Event{u(openTag + "\nctx\n" + closeTag + "\n\n")}, nil},
	{"wrapped auto-continue dropped",
		[]codec.Event{u(openTag + "\nctx\n" + closeTag + "\n\n" + autoContinuePrompt), a("continuing")},
		[]codec.Event{a("continuing")}},
	{"bare auto-continue kept as is", []codec.Event{u(autoContinuePrompt), a("x")},
		[]codec.Event{u(autoContinuePrompt), a("x")}},
	{"first closing tag quirk",
		[]codec.Event{u("plain question A"), u(openTag + "\nctx\n" + closeTag + "\n\nWhat does the " + closeTag + " tag do?"), a("ans")},
		[]codec.Event{u("What does the " + closeTag + " tag do?"), a("ans")}},
	{"quirk on re-filter", []codec.Event{u("What does the " + closeTag + " tag do?")}, []codec.Event{u(" tag do?")}},
	{"hidden codex inside mode", []codec.Event{u(openTag), u(hiddenAgents), u(closeTag + "\n\nx")}, []codec.Event{u("x")}},
	{"hidden codex keeps pending", []codec.Event{u("p"), u(hiddenAgents), a("ans")}, []codec.Event{u("p"), a("ans")}},
	{"close tag only", []codec.Event{u(closeTag + "\n\nx")}, []codec.Event{u("x")}},
	{"all leading newlines stripped", []codec.Event{u(openTag + closeTag + "\n\n\n\nreal")}, []codec.Event{u("real")}},
	{"only newlines stripped", []codec.Event{u(closeTag + "\n\r\n x")}, []codec.Event{u("\r\n x")}},
	{"second wrapped prompt in a row",
		[]codec.Event{u(openTag + "\nc\n" + closeTag + "\n\nfirst"), u(openTag + "\nc\n" + closeTag + "\n\nsecond")},
		[]codec.Event{u("first"), u("second")}},
	{"non-user events never dropped",
		[]codec.Event{codec.Init("/w", "m"), codec.Hook("h", openTag), codec.Unit(codec.KindCompacting),
			codec.ModelSwitch("opus"), codec.Complete(true, 1, 0)},
		[]codec.Event{codec.Init("/w", "m"), codec.Hook("h", openTag), codec.Unit(codec.KindCompacting),
			codec.ModelSwitch("opus"), codec.Complete(true, 1, 0)}},
}

func TestFilterInjectedEvents(t *testing.T) {
	for _, tc := range filterInjectedCases {
		t.Run(tc.name, func(t *testing.T) {
			got := describeEvents(store.FilterInjectedEvents(tc.in))
			if want := describeEvents(tc.want); !slices.Equal(got, want) {
				t.Errorf("FilterInjectedEvents(%q) = %q, want %q", describeEvents(tc.in), got, want)
			}
		})
	}
}

func TestFilterInjectedKeepsRowColumns(t *testing.T) {
	wrapped := openTag + "\nctx\n" + closeTag + "\n\nreal"
	in := []store.StoredEvent{
		{ID: 10, Seq: 3, Kind: codec.KindUserMessage, CharLen: 99, Event: u("dropped fragment")},
		{ID: 11, Seq: 4, Kind: codec.KindUserMessage, CharLen: int64(len(wrapped)), Event: u(wrapped)},
		{ID: 12, Seq: 6, Kind: codec.KindAssistantText, CharLen: 2, Event: a("ok")},
	}
	orig := slices.Clone(in)
	got := store.FilterInjected(in)
	want := []store.StoredEvent{
		{ID: 11, Seq: 4, Kind: codec.KindUserMessage, CharLen: int64(len(wrapped)), Event: u("real")},
		{ID: 12, Seq: 6, Kind: codec.KindAssistantText, CharLen: 2, Event: a("ok")},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("FilterInjected(%v) = %v, want %v", in, got, want)
	}
	if fmt.Sprint(in) != fmt.Sprint(orig) {
		t.Errorf("FilterInjected modified its input: %v, want %v", in, orig)
	}
}

// ctxDump is the part of a fixture's *.dump.json these tests use.
type ctxDump struct {
	Compactions []struct {
		SessionID int64  `json:"session_id"`
		AfterSeq  int64  `json:"after_seq"`
		Summary   string `json:"summary"`
	} `json:"compactions"`
	Context map[string]*string `json:"context"`
	Events  map[string][]struct {
		Seq     int64           `json:"seq"`
		Kind    codec.Kind      `json:"kind"`
		CharLen int64           `json:"char_len"`
		Event   json.RawMessage `json:"event"`
	} `json:"events"`
}

// loadCtxDump reads the dump of the AZUREAL-written fixture store name (see
// internal/fixtures for what happens when it is missing).
func loadCtxDump(t *testing.T, name string) ctxDump {
	t.Helper()
	data, err := os.ReadFile(fixtures.Dir(t, "azs", name+".dump.json"))
	if err != nil {
		t.Fatalf("read fixture %s: %v", name, err)
	}
	var d ctxDump
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("decode fixture %s: %v", name, err)
	}
	return d
}

// loaded returns the events AZUREAL loaded for session sid, as stored rows.
func (d ctxDump) loaded(t *testing.T, sid string) []store.StoredEvent {
	t.Helper()
	var out []store.StoredEvent
	for _, r := range d.Events[sid] {
		e, err := codec.DecodeEventJSON(r.Event)
		if err != nil {
			t.Fatalf("decode session %s seq %d: %v", sid, r.Seq, err)
		}
		out = append(out, store.StoredEvent{ID: r.Seq, Seq: r.Seq, Kind: r.Kind, CharLen: r.CharLen, Event: e})
	}
	return out
}

// payload is what build_context builds for session sid from the dump.
func (d ctxDump) payload(t *testing.T, sid string) *codec.ContextPayload {
	t.Helper()
	id, _ := strconv.ParseInt(sid, 10, 64)
	var p codec.ContextPayload
	after := int64(-1)
	for _, c := range d.Compactions {
		if c.SessionID == id && c.AfterSeq > after {
			after, p.Summary = c.AfterSeq, &c.Summary
		}
	}
	for _, r := range d.loaded(t, sid) {
		if r.Seq > after {
			p.Events = append(p.Events, r.Event)
		}
	}
	if p.Summary == nil && len(p.Events) == 0 {
		return nil
	}
	return &p
}

func TestBuildContextPromptFixtures(t *testing.T) {
	for _, name := range []string{"i_basic", "ii_compaction", "iv_legacy_v2", "vi_injected_context"} {
		t.Run(name, func(t *testing.T) {
			d := loadCtxDump(t, name)
			for sid, want := range d.Context {
				p := d.payload(t, sid)
				if (p == nil) != (want == nil) {
					t.Fatalf("session %s: payload %v, want context %v", sid, p, want)
				}
				if got := codec.BuildContextPrompt(p, "NEXT PROMPT"); want != nil && got != *want {
					t.Errorf("BuildContextPrompt(session %s, %q) = %q, want %q", sid, "NEXT PROMPT", got, *want)
				}
			}
		})
	}
}

// rowLines renders stored rows as "seq kind char_len json" for comparison.
func rowLines(t *testing.T, rows []store.StoredEvent) []string {
	t.Helper()
	out := make([]string, len(rows))
	for i, r := range rows {
		js, err := codec.EncodeEventJSON(r.Event)
		if err != nil {
			t.Fatalf("encode seq %d: %v", r.Seq, err)
		}
		out[i] = fmt.Sprintf("%d %s %d %s", r.Seq, r.Kind, r.CharLen, js)
	}
	return out
}

// appendLikeAzureal stores events as AZUREAL's append_events does (spec §2.1)
// and returns the rows.
func appendLikeAzureal(evs []codec.Event) []store.StoredEvent {
	var rows []store.StoredEvent
	for _, e := range evs {
		if e.Kind == codec.KindFiltered || e.Kind == codec.KindMayBeCompacting {
			continue
		}
		c := codec.CompactEvent(e)
		tagged := strings.Contains(e.Content, openTag) || strings.Contains(e.Content, closeTag)
		if e.Kind == codec.KindUserMessage && c.Content == "" && (tagged || codec.IsHiddenCodexContext(e.Content)) {
			continue
		}
		seq := int64(len(rows) + 1)
		rows = append(rows, store.StoredEvent{ID: seq, Seq: seq, Kind: c.Kind, CharLen: codec.CharLen(c), Event: c})
	}
	return rows
}

// viFirstContext is the payload the fixture's context-wrapped prompts carry.
func viFirstContext() *codec.ContextPayload {
	summary := "Earlier the user asked for X."
	return &codec.ContextPayload{Summary: &summary, Events: []codec.Event{
		u("first question"), a("first answer"),
		codec.ToolCall("t1", "Read", new("/a.rs"), json.RawMessage(`{"file_path":"/a.rs"}`)),
		codec.ToolResult("t1", "Read", new("/a.rs"), "l1\nl2", false),
	}}
}

// viRawEvents reconstructs the 19 raw events of the vi_injected_context
// fixture (its README lists them).
func viRawEvents() []codec.Event {
	ctx := viFirstContext()
	return []codec.Event{
		codec.Init("/repo", "gpt-5.5"),
		u(codec.BuildContextPrompt(ctx, "second question")), a("answer two"),
		u(hiddenAgents),
		u("<environment_context>\n  <cwd>/repo</cwd>\n  <shell>zsh</shell>\n</environment_context>"),
		u(openTag + "\n## User\nfirst question\n"), u("## Assistant\nfirst answer"),
		u(closeTag + "\n\nthird question"), a("answer three"),
		u(codec.BuildContextPrompt(ctx, autoContinuePrompt)), a("continuing"),
		u(autoContinuePrompt), a("continuing again"),
		u("What is " + openTag + " for?"), a("answer four"),
		u("plain question A"), u(codec.BuildContextPrompt(ctx, "What does the "+closeTag+" tag do?")), a("answer five"),
		codec.Complete(true, 9000, 0.02),
	}
}

// viLegacyRows are session 3's rows, stored raw (unsanitized, char_len of
// the raw event) as old AZUREAL builds did.
func viLegacyRows() []store.StoredEvent {
	ctx := viFirstContext()
	evs := []codec.Event{
		codec.Init("/repo", "gpt-5.5"),
		u(hiddenAgents), u("<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"),
		u(codec.BuildContextPrompt(ctx, "second question")), a("answer two"),
		u(openTag + "\n## User\nfirst question\n"), u("## Assistant\nfirst answer"),
		u(closeTag + "\n\nthird question"), a("answer three"),
		u(codec.BuildContextPrompt(ctx, autoContinuePrompt)), a("continuing"),
		u(autoContinuePrompt),
		u(openTag + "\ntruncated context with no closing tag"), a("after truncated"),
		codec.Complete(true, 5000, 0),
	}
	rows := make([]store.StoredEvent, len(evs))
	for i, e := range evs {
		seq := int64(i + 1)
		rows[i] = store.StoredEvent{ID: seq, Seq: seq, Kind: e.Kind, CharLen: codec.CharLen(e), Event: e}
	}
	return rows
}

func TestFilterInjectedFixture(t *testing.T) {
	d := loadCtxDump(t, "vi_injected_context")
	const row4 = "<azureal-session-context>\n[Previous conversation summary]\nEarlier the user asked for X.\n\n" +
		"[Conversation continues]\n\n## User\nfirst question\n\n## Assistant\nfirst answer\n\n## Tool: Read (/a.rs)\n\n" +
		"[Result: Read] l1\nl2\n</azureal-session-context>\n\nsecond question"
	if got := viLegacyRows()[3].Event.Content; got != row4 || len(got) != 253 {
		t.Fatalf("BuildContextPrompt(vi context, %q) = %q (%d bytes), want the fixture's row %q (253 bytes)",
			"second question", got, len(got), row4)
	}
	raw := viRawEvents()
	tests := []struct {
		name string
		sid  string
		rows []store.StoredEvent
	}{
		{"1 filter then append", "1", appendLikeAzureal(store.FilterInjectedEvents(raw))},
		{"2 append only", "2", appendLikeAzureal(raw)},
		{"3 legacy raw rows", "3", viLegacyRows()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rowLines(t, store.FilterInjected(tc.rows))
			if want := rowLines(t, d.loaded(t, tc.sid)); !slices.Equal(got, want) {
				t.Errorf("FilterInjected(session %s rows %q)\n = %q\nwant %q", tc.sid, rowLines(t, tc.rows), got, want)
			}
		})
	}
	if n := len(appendLikeAzureal(raw)); n != 15 {
		t.Errorf("append_events of the raw events stored %d rows, want 15 (the fixture's event_count)", n)
	}
}

// fuzzEvents decodes a fuzz input: events separated by '\x1e'; one starting
// with '\x1f' is an assistant text, any other a user message.
func fuzzEvents(data string) []codec.Event {
	var evs []codec.Event
	for _, part := range strings.Split(data, "\x1e") {
		if text, ok := strings.CutPrefix(part, "\x1f"); ok {
			evs = append(evs, a(text))
		} else {
			evs = append(evs, u(part))
		}
	}
	return evs
}

// encodeFuzzEvents is the inverse of fuzzEvents, for the seeds; it fails
// on events other than user messages and assistant texts.
func encodeFuzzEvents(evs []codec.Event) (string, bool) {
	parts := make([]string, len(evs))
	for i, e := range evs {
		switch e.Kind {
		case codec.KindUserMessage:
			parts[i] = e.Content
		case codec.KindAssistantText:
			parts[i] = "\x1f" + e.Text
		default:
			return "", false
		}
	}
	return strings.Join(parts, "\x1e"), len(evs) > 0
}

// FuzzFilterInjected checks properties that hold for AZUREAL's filter: it
// never grows anything, keeps every non-user event in order, and every user
// message it keeps is either an untagged input unchanged or the visible
// prompt of a tagged one. It is not idempotent (first-closing-tag quirk).
func FuzzFilterInjected(f *testing.F) {
	for _, tc := range filterInjectedCases {
		if enc, ok := encodeFuzzEvents(tc.in); ok {
			f.Add(enc)
		}
	}
	vi, _ := encodeFuzzEvents(viRawEvents()[1:18])
	f.Add(vi)
	f.Fuzz(func(t *testing.T, data string) {
		in := fuzzEvents(data)
		rows := make([]store.StoredEvent, len(in))
		for i, e := range in {
			rows[i] = store.StoredEvent{Seq: int64(i), Kind: e.Kind, Event: e}
		}
		got := store.FilterInjected(rows)
		plain := store.FilterInjectedEvents(in)
		if len(got) != len(plain) || len(got) > len(in) {
			t.Fatalf("FilterInjected kept %d, FilterInjectedEvents %d, of %d events", len(got), len(plain), len(in))
		}
		last, assistants := int64(-1), 0
		for i, r := range got {
			if r.Seq <= last {
				t.Fatalf("FilterInjected(%q) reordered events: seq %d after %d", data, r.Seq, last)
			}
			last = r.Seq
			checkFilteredEvent(t, in[r.Seq], r.Event)
			if fmt.Sprint(r.Event) != fmt.Sprint(plain[i]) {
				t.Fatalf("FilterInjected and FilterInjectedEvents disagree at %d: %q vs %q", i, r.Event.Content, plain[i].Content)
			}
			if r.Kind == codec.KindAssistantText {
				assistants++
			}
		}
		for _, e := range in {
			if e.Kind == codec.KindAssistantText {
				assistants--
			}
		}
		if assistants != 0 {
			t.Fatalf("FilterInjected(%q) dropped %d non-user events", data, -assistants)
		}
	})
}

// checkFilteredEvent checks one kept event against its input.
func checkFilteredEvent(t *testing.T, in, out codec.Event) {
	t.Helper()
	if out.Kind != codec.KindUserMessage {
		if fmt.Sprint(in) != fmt.Sprint(out) {
			t.Fatalf("non-user event changed: %v -> %v", in, out)
		}
		return
	}
	if len(out.Content) > len(in.Content) {
		t.Fatalf("user message grew: %q -> %q", in.Content, out.Content)
	}
	if codec.IsHiddenCodexContext(in.Content) {
		t.Fatalf("hidden Codex context kept: %q", in.Content)
	}
	tagged := strings.Contains(in.Content, openTag) || strings.Contains(in.Content, closeTag)
	switch {
	case !tagged && out.Content != in.Content:
		t.Fatalf("plain user message changed: %q -> %q", in.Content, out.Content)
	case tagged && out.Content != codec.StripInjectedContext(in.Content):
		t.Fatalf("tagged user message %q kept as %q, want its visible prompt", in.Content, out.Content)
	case tagged && (strings.TrimSpace(out.Content) == "" || codec.IsInternalAutoContinue(out.Content)):
		t.Fatalf("tagged user message %q kept as blank or internal %q", in.Content, out.Content)
	}
}

// autoContinuePrompt is an auto-continue message as agents sends it: the
// tags around the text that asks the agent to carry on.
const autoContinuePrompt = codec.AutoContinueOpenTag + "\nCarry on with the work in progress.\n" + codec.AutoContinueCloseTag
