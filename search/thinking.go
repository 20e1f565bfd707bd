package search

// Agents' thinking (store.ThinkingTable) is searched beside the index: it
// is not in the lists, whose keys are the store's events and compactions. Each search reads the store's thinking once and checks it
// like an event's text; a hit sits just below the event the thinking came
// before (newest first).

import (
	"context"
	"slices"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// KindThinking is the Kind of a hit in an agent's thinking.
const KindThinking = string(codec.KindThinking)

// matchingThoughts returns the hits among all of the store's thinking,
// newest first, without their snippets: each keeps its text and match for
// hitBuilder.thoughtSnippet (Scan, without an index).
func matchingThoughts(ctx context.Context, st *store.Store, hb *hitBuilder) ([]Hit, error) {
	match := func(t store.Thought) bool {
		_, _, ok := hb.q.match(capText(t.Text))
		return ok
	}
	return thoughtHits(hb, func(fn func(store.Thought, int64) error) error {
		return st.Thinking().Scan(ctx, match, fn)
	})
}

// thoughtHits returns the hits among the thoughts read gives its
// function, with their orders, newest first, without their snippets.
func thoughtHits(hb *hitBuilder, read func(fn func(store.Thought, int64) error) error) ([]Hit, error) {
	var hits []Hit
	err := read(func(t store.Thought, order int64) error {
		text := capText(t.Text)
		h, start, end, ok := hb.hit(t.SessionID, text)
		if !ok {
			return nil
		}
		h.Seq, h.Kind, h.order, h.src, h.at = t.BeforeSeq, KindThinking, order, text, [2]int{start, end}
		if s, ok := hb.session(t.SessionID); ok {
			if _, created, copied := hb.original(s, t.BeforeSeq); copied {
				h.Time = created // a fork's copy of its parent's thought
			}
		}
		hits = append(hits, h)
		return nil
	})
	if err == nil && len(hits) > 0 {
		err = hb.err()
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmpDesc(a.order, b.order) })
	return hits, err
}

// thinkingRows is where the docs rows of thoughts begin, downwards: the
// thought with lazuli_thinking.id n is row -(thinkingRows + n), below
// every compaction's row (minus its compactions.id).
const thinkingRows = 1 << 40

// thoughtRow returns the docs row of the thought with id n.
func thoughtRow(n int64) int64 { return -(thinkingRows + n) }

// thoughtOf returns the thought id of docs row row, and whether row is a
// thought's.
func thoughtOf(row int64) (int64, bool) { return -row - thinkingRows, row <= -thinkingRows }

// thoughtCandidates are the thoughts a search reads: those the lists name,
// and every one above the think mark.
type thoughtCandidates struct {
	ids   []int64
	above int64 // the think mark
}

// indexedThoughts returns the hits among the thought candidates, newest
// first.
func (x *Index) indexedThoughts(ctx context.Context, hb *hitBuilder, tc thoughtCandidates) ([]Hit, error) {
	return thoughtHits(hb, func(fn func(store.Thought, int64) error) error {
		if err := x.st.Thinking().ByID(ctx, tc.ids, fn); err != nil {
			return err
		}
		return x.st.Thinking().From(ctx, tc.above, fn)
	})
}

// thoughtBatch is how many thoughts Update reads from the store at a time.
const thoughtBatch = 500

// catchUpThinking indexes the thoughts above the think mark. The ids of
// lazuli_thinking are not AUTOINCREMENT: a new thought takes the largest
// id plus one, so an id at or below the mark is given again only after
// the thought at the mark was deleted (with its session). The mark names
// that thought (its session and a hash of its text); when it is not there
// any more, the thoughts are indexed again from the first.
func (u *updater) catchUpThinking(ctx context.Context) error {
	_, m, err := u.marks(ctx)
	if err != nil {
		return err
	}
	if m.think > 0 {
		at, err := u.x.st.Thinking().After(ctx, m.think-1, 1)
		if err != nil {
			return err
		}
		if len(at) == 0 || at[0].ID != m.think || at[0].SessionID != m.thinkSession ||
			indexdb.RowHash([]byte(at[0].Text)) != m.thinkHash {
			if err := u.dropThinking(ctx); err != nil {
				return err
			}
		}
	}
	for {
		_, m, err := u.marks(ctx)
		if err != nil {
			return err
		}
		batch, err := u.x.st.Thinking().After(ctx, m.think, thoughtBatch)
		if err != nil || len(batch) == 0 {
			return err
		}
		docs := make([]doc, 0, len(batch))
		for _, t := range batch {
			s, ok, err := u.session(ctx, t.SessionID)
			if err != nil {
				return err
			}
			if text := capText(t.Text); ok && text != "" {
				docs = append(docs, doc{id: thoughtRow(t.ID), session: t.SessionID, created: s.Created, text: text})
			}
		}
		tx, m, err := u.marks(ctx)
		if err != nil {
			return err
		}
		if err := u.insert(ctx, tx, docs); err != nil {
			return err
		}
		last := batch[len(batch)-1]
		m.think, m.thinkSession, m.thinkHash = last.ID, last.SessionID, indexdb.RowHash([]byte(last.Text))
		if err := u.writeMarks(ctx, tx, m); err != nil {
			return err
		}
		if err := u.commitIfDue(); err != nil {
			return err
		}
	}
}

// dropThinking removes every thought from the index, in the open
// transaction, and moves the think mark back to the start.
func (u *updater) dropThinking(ctx context.Context) error {
	tx, m, err := u.marks(ctx)
	if err != nil {
		return err
	}
	for _, q := range []string{
		"INSERT OR IGNORE INTO gone(id, seg) SELECT id, (SELECT COALESCE(MAX(id), 0) FROM segs) FROM docs WHERE id <= ?",
		"DELETE FROM docs WHERE id <= ?",
	} {
		if _, err := tx.ExecContext(ctx, q, -thinkingRows); err != nil {
			return err
		}
	}
	m.think, m.thinkSession, m.thinkHash = 0, 0, ""
	return u.writeMarks(ctx, tx, m)
}
