package teamsync

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
)

// IndexInsight supplies a push with what the store's insight index knows:
// each session's usage (in total and by turn and model), files and refs.
// The index (in Lazuli's cache folder) is brought up to date first; a push
// whose index cannot be kept (no writable cache folder) sends none.
type IndexInsight struct{}

// StoreInsight implements Insight.
func (IndexInsight) StoreInsight(ctx context.Context, st *store.Store) (map[int64]SessionInsight, error) {
	x, err := insight.Open(ctx, st)
	if errors.Is(err, insight.ErrUnavailable) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if _, err := x.Update(ctx); err != nil {
		return nil, err
	}
	out := map[int64]SessionInsight{}
	totals, err := x.Usage().Stats(ctx, insight.StatsQuery{By: insight.BySession})
	if err != nil {
		return nil, err
	}
	for _, t := range totals {
		id, ok := sessionNumber(t.Key)
		if !ok {
			continue
		}
		in := out[id]
		in.Usage = &Usage{Turns: t.Turns, Tokens: t.Tokens}
		out[id] = in
	}
	turns, err := x.Usage().ByTurnAndModel(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range turns {
		in := out[u.Session]
		in.Turns = append(in.Turns, TurnUsage{Turn: u.Turn, Day: u.Day, Model: u.Model, Backend: u.Backend, Tokens: u.Tokens})
		out[u.Session] = in
	}
	files, err := x.Files().List(ctx, 0)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		id, ok := sessionNumber(f.Session)
		if !ok {
			continue
		}
		in := out[id]
		in.Files = append(in.Files, File{Path: f.Path, Action: f.Action, Count: f.Count, FirstSeq: f.FirstSeq, LastSeq: f.LastSeq})
		out[id] = in
	}
	refs, err := x.Refs().List(ctx, 0)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		id, ok := sessionNumber(r.Session)
		if !ok {
			continue
		}
		in := out[id]
		in.Refs = append(in.Refs, Ref{Kind: r.Kind, Value: r.Value, FirstSeq: r.FirstSeq})
		out[id] = in
	}
	return out, nil
}

// sessionNumber reads the insight index's session key "S<n>".
func sessionNumber(key string) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimPrefix(key, "S"), 10, 64)
	return id, err == nil
}
