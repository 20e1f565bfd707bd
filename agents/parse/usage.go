package parse

// This file gathers token usage from the four formats, beside the events:
// the `.azs` has no place for tokens, so the importer and the runner keep
// them in the store's lazuli_usage table (store/usage.go).
//
//   - Claude stream-json (A): the result line's modelUsage, one row per
//     model with its costUSD; without modelUsage, its usage and
//     total_cost_usd.
//   - Claude transcripts (B): each assistant message's message.usage,
//     counted once per message id with the message's last line (a
//     message's lines repeat its id while the output grows).
//   - codex exec --json (C): turn.completed.usage.
//   - Codex rollouts (D): the growth of token_count's total_token_usage
//     from one turn's end to the next.
//
// Claude's input_tokens already exclude the cache; Codex's include the
// cached input, which is moved to CacheRead so that Input means uncached
// input everywhere. Codex's output includes its reasoning tokens.
//
// Each row is anchored at the last event the parser had produced when the
// usage was seen, as "the n-th event of kind k" (user messages left out),
// which later filtering of injected prompts does not move; PlaceUsage turns
// that into an index of the final event list.

import (
	"slices"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// UsageLog records a parser's usage rows and the anchors they need.
type UsageLog struct {
	counts map[codec.Kind]int
	last   codec.Kind // kind of the last anchorable event; "" before any
	recs   []usageRec
	byMsg  map[string]int // Claude message id → index in recs
}

type usageRec struct {
	u    store.Usage
	kind codec.Kind // anchored after the ord-th (0-based) event of kind; "" = before every event
	ord  int
}

// UsageParser is implemented by the parsers of all four formats: Usage
// returns the usage rows seen so far, to be placed with PlaceUsage.
type UsageParser interface {
	Parser
	Usage() []UsageRow
}

// UsageRow is a usage row with its anchor in the parser's output.
type UsageRow struct {
	rec usageRec
}

// Usage returns the row's usage, Event unset.
func (r UsageRow) Usage() store.Usage { return r.rec.u }

// anchorable reports whether an event of kind k can anchor usage: user
// messages may be dropped or merged by the injected-context filter, and
// Filtered events are dropped.
func anchorable(k codec.Kind) bool {
	return k != codec.KindUserMessage && k != codec.KindFiltered && k != codec.KindMayBeCompacting
}

// Saw counts the events a parser produced, in output order.
func (l *UsageLog) Saw(evs ...codec.Event) {
	for _, e := range evs {
		if !anchorable(e.Kind) {
			continue
		}
		if l.counts == nil {
			l.counts = map[codec.Kind]int{}
		}
		l.counts[e.Kind]++
		l.last = e.Kind
	}
}

// Add records u after the last event seen.
func (l *UsageLog) Add(u store.Usage) {
	l.recs = append(l.recs, usageRec{u: u, kind: l.last, ord: l.counts[l.last] - 1})
}

// SetMessage records u as the usage of Claude message id, replacing (and
// moving after the last event seen) an earlier row of the same message.
func (l *UsageLog) SetMessage(id string, u store.Usage) {
	if id == "" {
		l.Add(u)
		return
	}
	if l.byMsg == nil {
		l.byMsg = map[string]int{}
	}
	rec := usageRec{u: u, kind: l.last, ord: l.counts[l.last] - 1}
	if i, ok := l.byMsg[id]; ok {
		if i >= 0 { // < 0: a message an earlier import stored (see ResumeUsageLog)
			l.recs[i] = rec
		}
		return
	}
	l.byMsg[id] = len(l.recs)
	l.recs = append(l.recs, rec)
}

// UsageState is where a UsageLog stands after the lines fed so far: the
// anchorable events counted by kind, the kind of the last one, and the
// Claude message ids that have a row. It is what ResumeUsageLog needs to
// go on after those lines once their rows are stored.
type UsageState struct {
	Counts   map[codec.Kind]int
	Last     codec.Kind
	Messages []string
}

// State returns where l stands (see UsageState).
func (l *UsageLog) State() UsageState {
	s := UsageState{Counts: make(map[codec.Kind]int, len(l.counts)), Last: l.last, Messages: make([]string, 0, len(l.byMsg))}
	for k, n := range l.counts {
		s.Counts[k] = n
	}
	for id := range l.byMsg {
		s.Messages = append(s.Messages, id)
	}
	slices.Sort(s.Messages)
	return s
}

// ResumeUsageLog returns a log that goes on from s, as the log s was taken
// from would after the lines it had seen were stored: its rows are those of
// later lines only, anchored by absolute counts (PlaceUsageAfter with
// s.Counts as before), and a later line of a message that already had a
// row changes nothing, as PlaceUsageAfter would drop that row.
func ResumeUsageLog(s UsageState) UsageLog {
	l := UsageLog{counts: make(map[codec.Kind]int, len(s.Counts)), last: s.Last, byMsg: make(map[string]int, len(s.Messages))}
	for k, n := range s.Counts {
		l.counts[k] = n
	}
	for _, id := range s.Messages {
		l.byMsg[id] = -1
	}
	return l
}

// Rows returns the records as UsageRows.
func (l *UsageLog) Rows() []UsageRow {
	out := make([]UsageRow, len(l.recs))
	for i, r := range l.recs {
		out[i] = UsageRow{r}
	}
	return out
}

// PlaceUsage sets each row's Event to its anchor's index in events, the
// events the parser produced after filtering. A row whose anchor is gone
// goes after the last event.
func PlaceUsage(events []codec.Event, rows []UsageRow) []store.Usage {
	return PlaceUsageAfter(events, rows, nil)
}

// PlaceUsageAfter is PlaceUsage for events that follow earlier ones of the same
// parser (an import appending to a session, a run flushing again): before
// counts the earlier events by kind (see CountAnchors); a row anchored
// among them goes before events[0].
func PlaceUsageAfter(events []codec.Event, rows []UsageRow, before map[codec.Kind]int) []store.Usage {
	if len(rows) == 0 {
		return nil
	}
	type key struct {
		kind codec.Kind
		ord  int
	}
	at := map[key]int{}
	counts := map[codec.Kind]int{}
	for k, n := range before {
		counts[k] = n
	}
	for i, e := range events {
		if anchorable(e.Kind) {
			at[key{e.Kind, counts[e.Kind]}] = i
			counts[e.Kind]++
		}
	}
	out := make([]store.Usage, len(rows))
	for i, r := range rows {
		u := r.rec.u
		u.Event = -1
		if r.rec.kind != "" && r.rec.ord >= before[r.rec.kind] {
			if j, ok := at[key{r.rec.kind, r.rec.ord}]; ok {
				u.Event = j
			} else {
				u.Event = len(events) - 1
			}
		}
		out[i] = u
	}
	return out
}

// CountAnchors adds the anchorable events of evs to counts by kind.
func CountAnchors(counts map[codec.Kind]int, evs []codec.Event) map[codec.Kind]int {
	if counts == nil {
		counts = map[codec.Kind]int{}
	}
	for _, e := range evs {
		if anchorable(e.Kind) {
			counts[e.Kind]++
		}
	}
	return counts
}

// UsageTime returns a line's timestamp in the store's TimeFormat, "" when
// it has none.
func UsageTime(o Object) string { return usageTimeOf(o.Str("timestamp")) }

// UsageTime is the line's timestamp in the store's TimeFormat, "" when it
// has none (parse.UsageTime of a line read as Fields).
func (f *Fields) UsageTime() string { return usageTimeOf(f.Str("timestamp")) }

// usageTimeOf is an RFC 3339 time in the store's TimeFormat, "" when ts
// is not one.
func usageTimeOf(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return t.UTC().Format(store.TimeFormat)
}

// NonNeg reads a token count at k; anything but a non-negative integer is 0.
func NonNeg(o Object, k string) int64 { return nonNegOf(o[k]) }

// nonNegOf is NonNeg of one raw value.
func nonNegOf(raw []byte) int64 {
	n, ok := intOf(raw)
	if !ok || n < 0 {
		return 0
	}
	return n
}

// WithSource returns the row with its usage's Backend and Source set (a
// parser reading another CLI's output in a shared shape, Qwen's
// stream-json read by Claude's parser).
func (r UsageRow) WithSource(backend, source string) UsageRow {
	r.rec.u.Backend, r.rec.u.Source = backend, source
	return r
}
