package store

import (
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// FilterInjected applies AZUREAL's read-time filter
// strip_injected_context_from_events (spec §6.4) to loaded events. It hides
// hidden Codex context, injected context (including a prompt that Codex split
// into several user items) and context-wrapped internal prompts, and rewrites
// a context-wrapped prompt to its visible text. Surviving events keep their
// ID, Seq, Kind and CharLen, which still describe the stored row. The input
// is not modified.
//
// The filter reproduces AZUREAL byte for byte, quirks included: a prompt is
// cut at the first closing tag, so a prompt that mentions the tag loses its
// beginning; and a bare auto-continue block is kept as is.
func FilterInjected(events []StoredEvent) []StoredEvent {
	return filterInjected(events, func(s *StoredEvent) *codec.Event { return &s.Event })
}

// FilterInjectedEvents is FilterInjected for plain events, applied to a
// parsed agent transcript before it is stored. When no user message
// carries injected or hidden context, nothing is filtered and events
// itself is returned (a native import parses hundreds of thousands of
// events, and copying them all was a tenth of what it allocated).
func FilterInjectedEvents(events []codec.Event) []codec.Event {
	if !anyInjected(events) {
		return events
	}
	return filterInjected(events, func(e *codec.Event) *codec.Event { return e })
}

// anyInjected reports whether a user message of events carries hidden or
// injected context: without one, filterInjected keeps every event as it is.
func anyInjected(events []codec.Event) bool {
	for i := range events {
		e := &events[i]
		if e.Kind == codec.KindUserMessage && (codec.IsHiddenCodexContext(e.Content) || codec.HasContextTag(e.Content)) {
			return true
		}
	}
	return false
}

// filterInjected is the sequence filter over any element that carries an
// Event. Consecutive plain user messages are held back: if the run ends in
// a message carrying a context tag, they were parts of the hidden context.
func filterInjected[T any](in []T, event func(*T) *codec.Event) []T {
	out := make([]T, 0, len(in))
	var pending []int // indexes of the held-back messages
	inside := false   // between an opening tag and its closing tag
	for i := range in {
		e := event(&in[i]) // read only: in is not modified
		if e.Kind != codec.KindUserMessage {
			if !inside {
				out = appendIndexed(out, in, pending)
			}
			pending, inside = pending[:0], false
			out = append(out, in[i])
			continue
		}
		switch {
		case codec.IsHiddenCodexContext(e.Content):
		case inside:
			if strings.Contains(e.Content, codec.ContextCloseTag) {
				inside = false
				out = appendSanitized(out, in[i], event)
			}
		case codec.HasContextTag(e.Content):
			pending = pending[:0]
			if strings.Contains(e.Content, codec.ContextCloseTag) {
				out = appendSanitized(out, in[i], event)
			} else {
				inside = true
			}
		default:
			pending = append(pending, i)
		}
	}
	if !inside {
		out = appendIndexed(out, in, pending)
	}
	return out
}

// appendIndexed appends the elements of in at the given indexes.
func appendIndexed[T any](out, in []T, indexes []int) []T {
	for _, i := range indexes {
		out = append(out, in[i])
	}
	return out
}

// appendSanitized appends x with its user message rewritten to its visible
// prompt, unless nothing visible remains.
func appendSanitized[T any](out []T, x T, event func(*T) *codec.Event) []T {
	e := event(&x)
	s, ok := codec.SanitizeUserMessage(e.Content)
	if !ok || codec.IsBlank(s) {
		return out
	}
	e.Content = s
	return append(out, x)
}
