package search

// Reading the lists: the blocks of a 4-gram range, and the streams a
// search reads its candidates from (see postings.go for the format).

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"math"

	"github.com/lazuli-app/lazuli/indexdb"
)

// reader looks lists up in one read (or write) transaction of the index:
// every lookup of one reader sees the same segments. It keeps the blocks
// it has read, so the 4-grams of one text, which mostly share blocks in a
// small index, cost one read of each.
type reader struct {
	ctx   context.Context
	segs  []int64
	at    *sql.Stmt // the block holding a 4-gram, and the next block's first
	after *sql.Stmt // the first block after a 4-gram
	cache map[int64][]cachedBlock
}

// cachedBlock is a block of a segment that covers the 4-grams from first
// up to next (excluded). A gap before a segment's first block has no data.
type cachedBlock struct {
	first, next int64
	data        []byte
	gap         bool // before the segment's first block: no data
}

const cachedBlocks = 64 // blocks a reader keeps per segment

// querier is a transaction or a connection pool.
type querier interface {
	indexdb.Querier
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func newReader(ctx context.Context, q querier) (*reader, error) {
	segs, err := listSegs(ctx, q)
	if err != nil {
		return nil, err
	}
	r := &reader{ctx: ctx, cache: map[int64][]cachedBlock{}}
	for _, seg := range segs {
		r.segs = append(r.segs, seg.id)
	}
	if r.at, err = q.PrepareContext(ctx, `SELECT first, data, (SELECT MIN(first) FROM blocks WHERE seg = ?1 AND first > ?2)
		FROM blocks WHERE seg = ?1 AND first <= ?2 ORDER BY first DESC LIMIT 1`); err != nil {
		return nil, err
	}
	if r.after, err = q.PrepareContext(ctx, "SELECT MIN(first) FROM blocks WHERE seg = ? AND first > ?"); err != nil {
		_ = r.at.Close()
		return nil, err
	}
	return r, nil
}

func (r *reader) close() {
	_ = r.at.Close()
	_ = r.after.Close()
}

const noGram = 1 << 32 // after every 4-gram

// block returns the block of seg that covers the 4-gram g.
func (r *reader) block(seg, g int64) (cachedBlock, error) {
	for _, b := range r.cache[seg] {
		if b.first <= g && g < b.next {
			return b, nil
		}
	}
	var b cachedBlock
	var next sql.NullInt64
	err := r.at.QueryRowContext(r.ctx, seg, g).Scan(&b.first, &b.data, &next)
	if errors.Is(err, sql.ErrNoRows) {
		// Before the segment's first block.
		b.first, b.data, b.gap = -1, nil, true
		err = r.after.QueryRowContext(r.ctx, seg, g).Scan(&next)
	}
	if err != nil {
		return b, err
	}
	b.next = noGram
	if next.Valid {
		b.next = next.Int64
	}
	if b.first > g || b.next <= g || b.next > noGram {
		return b, errBadBlock
	}
	c := r.cache[seg]
	if len(c) == cachedBlocks {
		c = c[1:]
	}
	r.cache[seg] = append(c, b)
	return b, nil
}

// entries calls fn with each list of a 4-gram in gr, segment by segment.
func (r *reader) entries(gr gramRange, fn func(entry) error) error {
	for _, seg := range r.segs {
		for g := int64(gr.lo); g <= int64(gr.hi); {
			b, err := r.block(seg, g)
			if err != nil {
				return err
			}
			if !b.gap {
				var ferr error
				err := blockEntries(uint32(b.first), b.data, func(e entry) bool {
					if int64(e.gram) >= b.next {
						ferr = errBadBlock // a block's 4-grams end where the next begins
					} else if e.gram > gr.hi {
						return false
					} else if int64(e.gram) >= g {
						ferr = fn(e)
					}
					return ferr == nil
				})
				if err = cmp.Or(err, ferr); err != nil {
					return err
				}
			}
			g = b.next
		}
	}
	return nil
}

// stream returns the keys that hold a 4-gram of every part, descending, as
// they are asked for. It holds the lists it reads, so it outlives the
// transaction.
func (r *reader) stream(parts []gramRange) (*andIter, error) {
	a := &andIter{}
	for _, p := range parts {
		u := &unionIter{}
		err := r.entries(p, func(e entry) error {
			u.lists = append(u.lists, &listIter{enc: e.enc, left: e.n})
			return nil
		})
		if err != nil {
			return nil, err
		}
		u.start()
		a.parts = append(a.parts, u)
	}
	return a, nil
}

// has reports whether row id holds a 4-gram of every part.
func (r *reader) has(parts []gramRange, id int64) (bool, error) {
	id = key(id)
	for _, p := range parts {
		found := false
		err := r.entries(p, func(e entry) error {
			if found {
				return nil
			}
			var err error
			found, err = containsID(e.enc, e.n, id)
			return err
		})
		if err != nil || !found {
			return false, err
		}
	}
	return true, nil
}

// unionIter reads the keys of several lists, descending, each once.
type unionIter struct {
	lists []*listIter // a heap: the largest current key first
	cur   int64
	ok    bool
	err   error
}

func (u *unionIter) Len() int           { return len(u.lists) }
func (u *unionIter) Less(i, j int) bool { return u.lists[i].cur > u.lists[j].cur }
func (u *unionIter) Swap(i, j int)      { u.lists[i], u.lists[j] = u.lists[j], u.lists[i] }
func (u *unionIter) Push(x any)         { u.lists = append(u.lists, x.(*listIter)) }
func (u *unionIter) Pop() any {
	l := u.lists[len(u.lists)-1]
	u.lists = u.lists[:len(u.lists)-1]
	return l
}

// start reads the first key of each list and the union's first.
func (u *unionIter) start() {
	live := u.lists[:0]
	for _, l := range u.lists {
		if l.next() {
			live = append(live, l)
		} else if l.err != nil {
			u.err = l.err
		}
	}
	u.lists = live
	heap.Init(u)
	u.advance(math.MaxInt64)
}

// advance moves to the largest key at most x.
func (u *unionIter) advance(x int64) {
	for len(u.lists) > 0 && u.lists[0].cur > x {
		l := u.lists[0]
		for l.next() && l.cur > x {
		}
		if l.err != nil {
			u.err = l.err
		}
		if l.left == 0 && l.cur > x || l.err != nil {
			heap.Pop(u)
		} else {
			heap.Fix(u, 0)
		}
	}
	u.ok = len(u.lists) > 0 && u.err == nil
	if u.ok {
		u.cur = u.lists[0].cur
	}
}

// andIter reads the keys every one of its unions holds, descending.
type andIter struct {
	parts  []*unionIter
	done   bool
	held   int64 // what peek read
	heldOK bool
	peeked bool
}

// peek returns the key next would, without moving past it.
func (a *andIter) peek() (int64, bool) {
	if !a.peeked {
		a.held, a.heldOK = a.read()
		a.peeked = true
	}
	return a.held, a.heldOK
}

// next returns the next key; false at the end or on an error (err).
func (a *andIter) next() (int64, bool) {
	if a.peeked {
		a.peeked = false
		return a.held, a.heldOK
	}
	return a.read()
}

func (a *andIter) read() (int64, bool) {
	if a.done || len(a.parts) == 0 {
		return 0, false
	}
	target := int64(math.MaxInt64)
	for {
		agreed := true
		for _, u := range a.parts {
			u.advance(target)
			if !u.ok {
				a.done = true
				return 0, false
			}
			if u.cur < target {
				if target != math.MaxInt64 {
					agreed = false
				}
				target = u.cur
			}
		}
		if agreed {
			for _, u := range a.parts {
				u.advance(target - 1)
			}
			return target, true
		}
	}
}

// err returns the error that ended a.
func (a *andIter) err() error {
	for _, u := range a.parts {
		if u.err != nil {
			return u.err
		}
	}
	return nil
}
