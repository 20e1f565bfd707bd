package scale

import (
	"context"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Match is one event SearchAZUREALParallel found.
type Match struct {
	SessionID, Seq int64
}

// SearchAZUREALParallel searches st the way AZUREAL does (SearchAZUREAL)
// on Lazuli's store reader, as the "azureal-parallel" baseline of
// BenchmarkSearch: it decompresses every user prompt and assistant reply and
// keeps those whose lower-cased text contains the lower-cased query, a
// plain substring match (no index, no tool calls, tool results or
// summaries). It returns every match, in events.id order. Rows are read in
// batches and decompressed in parallel by the store, so if anything it is
// faster than AZUREAL's own loop.
func SearchAZUREALParallel(ctx context.Context, st *store.Store, query string) ([]Match, error) {
	needle := strings.ToLower(query)
	var out []Match
	opts := store.ScanOptions{Kinds: []codec.Kind{codec.KindUserMessage, codec.KindAssistantText}}
	err := st.Scan().Events(ctx, opts, func(b []store.ScannedEvent) error {
		for i := range b {
			e := &b[i].Event
			text := e.Content
			if e.Kind == codec.KindAssistantText {
				text = e.Text
			}
			if strings.Contains(strings.ToLower(text), needle) {
				out = append(out, Match{SessionID: b[i].SessionID, Seq: b[i].Seq})
			}
		}
		return nil
	})
	return out, err
}
