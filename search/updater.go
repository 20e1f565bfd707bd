package search

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// Update pacing. Each commit writes its pending postings as a new segment,
// which later merges rewrite: committing every batch of a big build costs
// more than committing every few megabytes.
// Commits still come often enough that another process waiting to write
// the index, or a kill, loses little.
const (
	commitBytes    = 8 << 20         // text indexed per transaction, at most about
	commitEvery    = time.Second     // time per transaction, at most about
	catchUpEvery   = 2 * time.Second // a backfill indexes new events this often
	backfillWindow = 32_000          // events per backfill window
)

// updater indexes batches of the store for one Update, in transactions
// that span several batches.
type updater struct {
	x        *Index
	s        *Stats
	progress Progress
	sessions map[int64]store.Session // the store's sessions, by id
	minID    int64                   // the store's smallest events id
	total    int64                   // ids from minID to the largest seen
	lastUp   time.Time               // when catchUp last ran
	// started: this updater wrote the marks of an empty index (see
	// Index.start), and a feed has not handed it rows yet.
	started bool

	tx      *sql.Tx // the open transaction; nil between transactions
	pend    pending // the postings of the open transaction
	grams   gramSet
	txBytes int64
	txStart time.Time
	written *marks // the marks the open transaction wrote
}

// begin returns the open transaction, beginning one if needed.
func (u *updater) begin(ctx context.Context) (*sql.Tx, error) {
	if u.tx == nil {
		tx, err := u.x.w.BeginTx(ctx, nil) // immediate: _txlock in the DSN
		if err != nil {
			return nil, err
		}
		u.tx, u.txBytes, u.txStart = tx, 0, time.Now()
	}
	return u.tx, nil
}

// commit commits the open transaction, if any.
func (u *updater) commit() error {
	if u.tx == nil {
		return nil
	}
	err := u.flush()
	if err == nil {
		err = u.tx.Commit()
	} else {
		_ = u.tx.Rollback() // the flush's error is the one to report
	}
	u.tx = nil
	u.pend.reset()
	if err == nil && u.written != nil {
		u.report(*u.written)
	}
	u.written = nil
	return err
}

// flush writes the open transaction's postings as a segment, then merges
// the segments of any level that has enough (a first build leaves most of
// that to its final merge: see buildFanIn).
func (u *updater) flush() error {
	if u.pend.empty() {
		return nil
	}
	ctx := context.Background() // the transaction's own context ends it
	if err := u.pend.flush(ctx, u.tx); err != nil {
		return err
	}
	fanIn := mergeFanIn
	if done, _ := indexdb.GetMeta(ctx, u.tx, "optimized"); done != "1" {
		fanIn = buildFanIn
	}
	return autoMerge(ctx, u.tx, fanIn)
}

// writeMarks writes m in the open transaction tx.
func (u *updater) writeMarks(ctx context.Context, tx *sql.Tx, m marks) error {
	if err := writeMarks(ctx, tx, m); err != nil {
		return err
	}
	u.written = &m
	return nil
}

// commitIfDue commits when the transaction holds enough or is old enough.
func (u *updater) commitIfDue() error {
	if u.tx != nil && (u.txBytes >= commitBytes || time.Since(u.txStart) >= commitEvery) {
		return u.commit()
	}
	return nil
}

// rollback abandons the open transaction, if any.
func (u *updater) rollback() {
	if u.tx != nil {
		_ = u.tx.Rollback() // the error that made us roll back is the one to report
		u.tx, u.written = nil, nil
		u.pend.reset()
	}
}

// loadSessions reads the store's sessions.
func (u *updater) loadSessions(ctx context.Context) error {
	list, err := u.x.st.Scan().Sessions(ctx)
	if err != nil {
		return err
	}
	u.sessions = make(map[int64]store.Session, len(list))
	for _, s := range list {
		u.sessions[s.ID] = s
	}
	return nil
}

// session returns the store's session id, reading the sessions again
// once when it is new since they were read.
func (u *updater) session(ctx context.Context, id int64) (store.Session, bool, error) {
	if s, ok := u.sessions[id]; ok {
		return s, true, nil
	}
	if err := u.loadSessions(ctx); err != nil {
		return store.Session{}, false, err
	}
	s, ok := u.sessions[id]
	return s, ok, nil
}

// marks reads the marks in the open transaction.
func (u *updater) marks(ctx context.Context) (*sql.Tx, marks, error) {
	tx, err := u.begin(ctx)
	if err != nil {
		return nil, marks{}, err
	}
	m, err := readMarks(ctx, tx)
	return tx, m, err
}

// catchUp indexes the events, compactions and thoughts added after the
// marks.
func (u *updater) catchUp(ctx context.Context) error {
	u.lastUp = time.Now()
	_, m, err := u.marks(ctx)
	if err != nil {
		return err
	}
	err = u.x.st.Scan().Events(ctx, store.ScanOptions{After: m.hi}, func(b []store.ScannedEvent) error {
		return u.events(ctx, b, u.takeNew)
	})
	if err != nil {
		return err
	}
	err = u.x.st.Scan().Compactions(ctx, m.comp, func(b []store.Compaction) error {
		return u.compactions(ctx, b)
	})
	if err != nil {
		return err
	}
	return u.catchUpThinking(ctx)
}

// takeNew takes the events above hi, moving hi past each (catchUp's rule).
func (u *updater) takeNew(m *marks, e *store.ScannedEvent) bool {
	if e.ID <= m.hi {
		return false
	}
	m.setHi(e, u.sessions[e.SessionID])
	return true
}

// backfill indexes the events below lo, one window at a time, newest
// window first, catching up with new events every catchUpEvery.
func (u *updater) backfill(ctx context.Context) error {
	for {
		tx, m, err := u.marks(ctx)
		if err != nil {
			return err
		}
		if m.complete(u.minID) {
			if m.lo != 0 {
				m.lo = 0
				return u.writeMarks(ctx, tx, m)
			}
			u.report(m)
			return nil
		}
		if m.win == 0 {
			if m, err = u.openWindow(ctx, tx, m); err != nil {
				return err
			}
		}
		if err := u.fillWindow(ctx, m); err != nil {
			return err
		}
	}
}

// openWindow starts the next backfill window: the backfillWindow events
// below lo, or all of them.
func (u *updater) openWindow(ctx context.Context, tx *sql.Tx, m marks) (marks, error) {
	from, ok, err := u.x.st.Scan().EventIDBelow(ctx, m.lo, u.x.window)
	if err != nil {
		return m, err
	}
	if !ok {
		from = min(1, u.minID) // ids start at 1 in AZUREAL's files; others may go lower
	}
	m.win, m.next = from, from
	return m, u.writeMarks(ctx, tx, m)
}

// fillWindow indexes the window's events in id order, then moves lo down
// to the window's start.
func (u *updater) fillWindow(ctx context.Context, m marks) error {
	err := u.x.st.Scan().Events(ctx, store.ScanOptions{After: m.next - 1, Before: m.lo}, func(b []store.ScannedEvent) error {
		err := u.events(ctx, b, takeWindow)
		if err != nil || time.Since(u.lastUp) < catchUpEvery {
			return err
		}
		return u.catchUp(ctx)
	})
	if err != nil {
		return err
	}
	if closed, err := u.closeWindow(ctx, m.win); err != nil || !closed {
		return err
	}
	return u.commit() // a window is a unit of progress
}

// closeWindow moves lo down to the start of the backfill window win, now
// filled; closed is false when the marks no longer have that window open
// (another process closed it).
func (u *updater) closeWindow(ctx context.Context, win int64) (closed bool, err error) {
	tx, cur, err := u.marks(ctx)
	if err != nil || cur.win != win {
		return false, err
	}
	cur.lo, cur.win, cur.next = cur.win, 0, 0
	return true, u.writeMarks(ctx, tx, cur)
}

// takeWindow takes the events of the open backfill window not yet
// indexed, moving next past each (fillWindow's rule).
func takeWindow(m *marks, e *store.ScannedEvent) bool {
	if m.win == 0 || e.ID < m.next || e.ID >= m.lo {
		return false
	}
	m.next = e.ID + 1
	return true
}

// report calls progress with the span of ids m covers.
func (u *updater) report(m marks) {
	if u.progress == nil {
		return
	}
	u.total = max(u.total, m.hi-u.minID+1)
	done := u.total
	if !m.complete(u.minID) {
		done = m.hi - m.lo + 1
		if m.win > 0 {
			done += m.next - m.win
		}
	}
	u.progress(max(0, min(done, u.total)), max(0, u.total))
}

// doc is one row to index.
type doc struct {
	id, session, ord int64
	created          string
	text             string
	full             string // an event's full text, indexed after text (see scannedParts)
}

// events indexes the events of a batch that take reports as new: take
// moves the marks past each event it accepts, and rejects the events the
// marks already cover (another process may have indexed them meanwhile).
func (u *updater) events(ctx context.Context, batch []store.ScannedEvent, take func(*marks, *store.ScannedEvent) bool) error {
	if err := u.x.st.FullText().Attach(ctx, batch); err != nil {
		return err
	}
	return u.rows(ctx, batch, take)
}

// rows is events for a batch whose full text is attached.
func (u *updater) rows(ctx context.Context, batch []store.ScannedEvent, take func(*marks, *store.ScannedEvent) bool) error {
	u.s.Events += int64(len(batch))
	// An event's text is indexed as scannedText joins it, without the
	// join: a Pi import's full text is 60 % of its history.
	type parts struct{ own, full string }
	texts := make([]parts, len(batch))
	for i := range batch {
		texts[i].own, texts[i].full = scannedParts(&batch[i])
		if texts[i] == (parts{}) {
			continue
		}
		if _, _, err := u.session(ctx, batch[i].SessionID); err != nil {
			return err
		}
	}
	tx, m, err := u.marks(ctx)
	if err != nil {
		return err
	}
	docs := make([]doc, 0, len(batch))
	hi := m.hi
	for i := range batch {
		e := &batch[i]
		if !take(&m, e) || texts[i] == (parts{}) {
			continue
		}
		if s, ok := u.sessions[e.SessionID]; ok { // else deleted since the batch was read
			docs = append(docs, doc{id: e.ID, session: e.SessionID, created: s.Created, text: texts[i].own, full: texts[i].full})
		}
	}
	if m.hi != hi {
		for i := len(batch) - 1; i >= 0; i-- {
			if batch[i].ID == m.hi {
				m.hiHash = rowHash(&batch[i])
				break
			}
		}
	}
	if err := u.insert(ctx, tx, docs); err != nil {
		return err
	}
	if err := u.writeMarks(ctx, tx, m); err != nil {
		return err
	}
	return u.commitIfDue()
}

// compactions indexes a batch of compaction summaries above the comp mark.
func (u *updater) compactions(ctx context.Context, batch []store.Compaction) error {
	docs := make([]doc, 0, len(batch))
	for _, c := range batch {
		s, ok, err := u.session(ctx, c.SessionID)
		if err != nil {
			return err
		}
		text := capText(c.Summary)
		if !ok || text == "" {
			continue
		}
		ord, err := u.x.st.Scan().EventIDAt(ctx, c.SessionID, c.AfterSeq)
		if err != nil {
			return err
		}
		docs = append(docs, doc{id: -c.ID, session: c.SessionID, ord: ord, created: s.Created, text: text})
	}
	tx, m, err := u.marks(ctx)
	if err != nil {
		return err
	}
	keep := docs[:0:0]
	for _, d := range docs {
		if -d.id > m.comp {
			keep = append(keep, d)
		}
	}
	if err := u.insert(ctx, tx, keep); err != nil {
		return err
	}
	u.s.Compactions += int64(len(keep))
	m.comp = max(m.comp, batch[len(batch)-1].ID)
	if err := u.writeMarks(ctx, tx, m); err != nil {
		return err
	}
	return u.commitIfDue()
}

// insert adds docs to the index.
func (u *updater) insert(ctx context.Context, tx *sql.Tx, docs []doc) error {
	if len(docs) == 0 {
		return nil
	}
	sess, err := tx.PrepareContext(ctx, "INSERT OR IGNORE INTO sessions(id, created) VALUES (?, ?)")
	if err != nil {
		return err
	}
	defer sess.Close()
	row, err := tx.PrepareContext(ctx, "INSERT INTO docs(id, session, ord) VALUES (?, ?, ?)")
	if err != nil {
		return err
	}
	defer row.Close()
	// The rows go in docsPerInsert at a time: one statement per row was
	// a sixth of indexing.
	var many *sql.Stmt
	if len(docs) >= docsPerInsert {
		if many, err = tx.PrepareContext(ctx, manyDocs); err != nil {
			return err
		}
		defer many.Close()
	}
	args := make([]any, 0, 3*docsPerInsert)
	var prev int64
	for i, d := range docs {
		if i == 0 || d.session != prev {
			if _, err := sess.ExecContext(ctx, d.session, d.created); err != nil {
				return err
			}
			prev = d.session
		}
		var ord any
		if d.id < 0 {
			ord = d.ord
		}
		if args = append(args, d.id, d.session, ord); len(args) == cap(args) {
			if _, err := many.ExecContext(ctx, args...); err != nil {
				return err
			}
			args = args[:0]
		}
		u.pend.add(d.id, u.grams.ofParts(d.text, d.full))
		if len(u.pend.keys) >= pendingPostings { // a segment of the open transaction: memory stays bounded
			if err := u.pend.flush(ctx, tx); err != nil {
				return err
			}
		}
		u.s.Indexed++
		n := int64(len(d.text) + len(d.full))
		if d.text != "" && d.full != "" {
			n++ // the newline that joins them
		}
		u.s.TextBytes += n
		u.txBytes += n
	}
	for ; len(args) > 0; args = args[3:] {
		if _, err := row.ExecContext(ctx, args[:3]...); err != nil {
			return err
		}
	}
	return nil
}

// docsPerInsert rows of docs are inserted by one manyDocs statement.
const docsPerInsert = 64

var manyDocs = "INSERT INTO docs(id, session, ord) VALUES " + strings.Repeat("(?, ?, ?), ", docsPerInsert-1) + "(?, ?, ?)"
