package listcache

import (
	"context"
	"database/sql"
	"errors"
	"math"
)

// A full count (the first Sessions().List of a Store that has no usable saved
// counts, see disk.go) has to visit every row of the events table: the
// message count needs each row's kind and the char sum its char_len, and
// no index of AZUREAL's schema holds them. Reading the rows
// into Go costs about a microsecond each, so SQLite aggregates them
// instead, through the index on events(session_id, seq), which yields the
// rows grouped by session without a sort. The work is split in two halves
// by session id, the second on a helper connection (the aux pool the
// store passes to Snapshot), so that both cores count.

// sessionTotals is what the aggregate query returns for one session.
type sessionTotals struct {
	count, msgs, maxID, chars int64 // chars: the char_len of every row, added up
	badSeqs                   int64 // rows whose seq is not an integer
	overflow                  bool  // chars is too large to be true (see CharSum)
}

// afterChars is the char sum of a compacted session after its compaction.
type afterChars struct {
	afterSeq, chars int64
	overflow        bool
}

// half is the part of the counts one connection computes.
type half struct {
	totals map[int64]sessionTotals
	err    error
}

// aggregateQuery totals the rows of the sessions in a range of ids. The
// chars are a TOTAL (see CharSum), which unlike SUM never fails: two
// absurd char_len values in one session (2^63-1 each) must not make the
// whole list fail. The CASE counts what kind IN ('UserMessage',
// 'AssistantText') does, a fifth faster: SQLite tests an IN list through a
// temporary index.
const aggregateQuery = `SELECT session_id, COUNT(*),
	SUM(CASE kind WHEN 'UserMessage' THEN 1 WHEN 'AssistantText' THEN 1 ELSE 0 END), MAX(id), ` + charTotal + `,
	SUM(typeof(seq) != 'integer')
	FROM events WHERE session_id > ? AND session_id <= ? GROUP BY session_id`

// afterCharsQuery adds up char_len after each compacted session's latest
// compaction, through the index.
const afterCharsQuery = `SELECT c.session_id, c.after_seq,
	(SELECT ` + charTotal + ` FROM events WHERE session_id = c.session_id AND seq > c.after_seq)
	FROM (SELECT session_id, MAX(after_seq) AS after_seq FROM compactions GROUP BY session_id) AS c`

// CharLenColumn is char_len as a load reports it: the integer value of any
// storage class, 0 for NULL or text that is not a number. It is the store's
// charLenColumn (a store test holds them equal): the counts must add up
// what a load of the session reports.
const CharLenColumn = "COALESCE(CAST(char_len AS INTEGER), 0)"

// charTotal adds up the char_len of rows as a load reports each (see
// CharLenColumn), in a float, which SQLite adds exactly while the total is
// below 2^53 (a store of 8 PB of text); CharSum makes it an integer.
const charTotal = "TOTAL(" + CharLenColumn + ")"

// CharSum returns a charTotal as an integer; overflow is true when it is
// 2^53 or more either way, which no real session reaches: char_len values
// that large are damage, and AZUREAL's SUM fails on them.
func CharSum(total float64) (n int64, overflow bool) {
	if total >= 1<<53 || total <= -(1<<53) {
		return 0, true
	}
	return int64(total), false
}

// rebuildSQL counts everything in q's snapshot, with aux (which may be nil)
// totalling half of the sessions. It reports false when the queries do not
// agree (rows of no session: a NULL session_id) and the counts must be
// made in Go instead.
func (c *Cache) rebuildSQL(ctx context.Context, q Querier, compactions bool, comps map[int64]int64, aux *sql.DB) (bool, error) {
	mid, err := medianSession(ctx, q)
	if err != nil {
		return false, err
	}
	upper := make(chan half, 1)
	if aux != nil {
		go func() { upper <- upperHalf(ctx, aux, mid) }()
	} else {
		upper <- half{err: errNoHelper}
	}
	lower := totalsOf(ctx, q, math.MinInt64, mid)
	var after map[int64]afterChars
	if lower.err == nil {
		after, lower.err = charsAfterCompactions(ctx, q, compactions)
	}
	up := <-upper
	if lower.err != nil {
		return false, lower.err
	}
	var wantCount, wantMax int64
	err = q.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM events), (SELECT COALESCE(MAX(id), 0) FROM events)").
		Scan(&wantCount, &wantMax)
	if err != nil {
		return false, err
	}
	// The helper ran in a transaction of its own. With AZUREAL's rollback
	// journal it saw the same rows, since q's read lock keeps writers out;
	// otherwise (an error, a WAL file changed in between) q does its part.
	if up.err != nil || !addsUp(wantCount, wantMax, lower, up) {
		if up = totalsOf(ctx, q, mid, math.MaxInt64); up.err != nil {
			return false, up.err
		}
		if !addsUp(wantCount, wantMax, lower, up) {
			return false, nil // rows no query sees (a NULL session_id): count in Go
		}
	}
	if !sameAfter(after, comps) {
		return false, nil
	}
	aggs := make(map[int64]Agg, len(lower.totals)+len(up.totals)+len(after))
	for _, h := range []half{lower, up} {
		for id, t := range h.totals {
			aggs[id] = Agg{Count: t.count, Msgs: t.msgs, MaxID: t.maxID, Chars: t.chars,
				BadSeqs: t.badSeqs, Overflow: t.overflow}
		}
	}
	for id, ac := range after {
		a := aggs[id]
		a.AfterSeq, a.Compacted, a.Chars, a.Overflow = ac.afterSeq, true, ac.chars, ac.overflow
		aggs[id] = a
	}
	c.aggs, c.lastID, c.total, c.valid = aggs, wantMax, wantCount, true
	return true, nil
}

// errNoHelper stands for a helper connection that could not be had.
var errNoHelper = errors.New("no helper connection")

// medianSession returns the id that splits the sessions in two halves.
func medianSession(ctx context.Context, q Querier) (int64, error) {
	var mid sql.NullInt64
	err := q.QueryRowContext(ctx, "SELECT id FROM sessions ORDER BY id LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM sessions)").Scan(&mid)
	if err != nil && err != sql.ErrNoRows {
		return 0, err
	}
	if !mid.Valid {
		return math.MaxInt64, nil // no sessions: one half holds every row
	}
	return mid.Int64, nil
}

// upperHalf totals the sessions above mid on the helper pool, in a read
// transaction of its own.
func upperHalf(ctx context.Context, aux *sql.DB, mid int64) half {
	tx, err := aux.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return half{err: err}
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	return totalsOf(ctx, tx, mid, math.MaxInt64)
}

// totalsOf totals the sessions with lo < id ≤ hi.
func totalsOf(ctx context.Context, q Querier, lo, hi int64) half {
	h := half{totals: map[int64]sessionTotals{}}
	rows, err := q.QueryContext(ctx, aggregateQuery, lo, hi)
	if err != nil {
		return half{err: err}
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id    int64
			t     sessionTotals
			total float64
		)
		if err := rows.Scan(&id, &t.count, &t.msgs, &t.maxID, &total, &t.badSeqs); err != nil {
			return half{err: err}
		}
		t.chars, t.overflow = CharSum(total)
		h.totals[id] = t
	}
	if err := rows.Err(); err != nil {
		return half{err: err}
	}
	return h
}

// charsAfterCompactions returns the char sums after the latest compaction
// of every compacted session.
func charsAfterCompactions(ctx context.Context, q Querier, compactions bool) (map[int64]afterChars, error) {
	after := map[int64]afterChars{}
	if !compactions {
		return after, nil
	}
	rows, err := q.QueryContext(ctx, afterCharsQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id, afterSeq int64
			total        float64
		)
		if err := rows.Scan(&id, &afterSeq, &total); err != nil {
			return nil, err
		}
		ac := afterChars{afterSeq: afterSeq}
		ac.chars, ac.overflow = CharSum(total)
		after[id] = ac
	}
	return after, rows.Err()
}

// addsUp reports whether the two halves hold count rows with the largest
// id maxID, as the main transaction sees them.
func addsUp(count, maxID int64, halves ...half) bool {
	var n, m int64
	for _, h := range halves {
		for _, t := range h.totals {
			n, m = n+t.count, max(m, t.maxID)
		}
	}
	return n == count && m == maxID
}

// sameAfter reports whether after has the compactions of comps (both come
// from the same transaction; this guards the two queries' agreement).
func sameAfter(after map[int64]afterChars, comps map[int64]int64) bool {
	if len(after) != len(comps) {
		return false
	}
	for id, ac := range after {
		if a, ok := comps[id]; !ok || a != ac.afterSeq {
			return false
		}
	}
	return true
}
