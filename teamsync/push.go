package teamsync

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/store"
)

// DefaultBatch is the number of events one push transaction carries.
const DefaultBatch = 5000

// Options says how to push.
type Options struct {
	Machine    string // the machine label; required
	User       string // who pushes; required
	Repository string // the repository the store's worktree belongs to
	// AllowSecrets sends texts as they are; by default every secret the
	// export scan finds is replaced with its [REDACTED:rule] mark first.
	AllowSecrets bool
	BatchRows    int     // events per transaction; ≤ 0 means DefaultBatch
	Writers      int     // connections sending batches at once; ≤ 0 means DefaultWriters
	Insight      Insight // usage, files and refs of sessions; nil for none
	// Hook, when set, is called at each point where a push can be
	// interrupted; an error it returns stops the push. Tests kill or
	// disturb a push there.
	Hook func(point string) error
}

// Insight supplies what the insight index knows of a store's sessions, by
// session id (IndexInsight reads the insight index); a push without one
// sends no usage, files or refs.
type Insight interface {
	StoreInsight(ctx context.Context, st *store.Store) (map[int64]SessionInsight, error)
}

// SessionInsight is a session's usage, files and refs.
type SessionInsight struct {
	Usage *Usage // nil when unknown
	Turns []TurnUsage
	Files []File
	Refs  []Ref
}

// TurnUsage is the usage of one turn with one model.
type TurnUsage struct {
	Turn                int64
	Day, Model, Backend string // Day: YYYY-MM-DD
	store.Tokens
}

// Usage is a session's token usage and cost over its turns.
type Usage struct {
	Turns int64
	store.Tokens
}

// File is a file a session touched.
type File struct {
	Path, Action             string
	Count, FirstSeq, LastSeq int64
}

// Ref is a pull request, issue, commit, branch or URL a session mentions.
type Ref struct {
	Kind, Value string
	FirstSeq    int64
}

// Report says what a push of one store did.
type Report struct {
	Store      string `json:"store"`
	StoreID    string `json:"store_id"`
	NewStoreID bool   `json:"new_store_id"` // the store got its id in this push
	// Forked reports that the database held different rows under the
	// store's id (a copy of the store pushed first), so the store got a
	// new id and was pushed as a store of its own.
	Forked      bool        `json:"forked"`
	Sessions    int         `json:"sessions"`    // session rows written (new or changed)
	Events      int64       `json:"events"`      // event rows sent
	Compactions int         `json:"compactions"` // compaction rows sent
	Redactions  []Redaction `json:"redactions"`  // secrets replaced before sending
	// Unscanned counts events whose payload could not be decoded, so not
	// scanned for secrets: their rows go without the payload (unless
	// AllowSecrets), and a pull leaves them out.
	Unscanned int `json:"unscanned"`
}

// Redaction is one secret replaced before it left the machine.
type Redaction struct {
	SessionID int64  `json:"session_id"`
	Seq       int64  `json:"seq"` // 0 for the session's own fields
	Field     string `json:"field"`
	Rule      string `json:"rule"`
	Preview   string `json:"preview"` // masked, as the export scan shows it
}

// NewStoreID returns a new random store id.
func NewStoreID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// pusher is one push of one store.
type pusher struct {
	db      *DB
	st      *store.Store
	opt     Options
	rep     Report
	id      string
	rows    map[int64]store.Session // the store's sessions by id
	batch   int
	writers int
	hookMu  sync.Mutex
}

// Push sends what is new in st since its last push: events and compactions
// above the largest id the database holds for the store, and every session
// row that is new or changed. Each batch is one transaction, so a push
// stopped at any moment and run again ends with the same rows as one
// uninterrupted push. The schema is created or migrated first.
func Push(ctx context.Context, db *DB, st *store.Store, opt Options) (Report, error) {
	p := &pusher{db: db, st: st, opt: opt, batch: opt.BatchRows, rep: Report{Store: st.Path(), Redactions: []Redaction{}}}
	if p.batch <= 0 {
		p.batch = DefaultBatch
	}
	if p.writers = opt.Writers; p.writers <= 0 {
		p.writers = DefaultWriters
	}
	if opt.Machine == "" || opt.User == "" {
		return p.rep, errors.New("push: a machine label and a user are required")
	}
	err := p.run(ctx)
	if errors.Is(err, errConnLost) {
		return p.rep, fmt.Errorf("push %s: %w (push again to resume)", st.Path(), err)
	}
	if err != nil {
		return p.rep, fmt.Errorf("push %s: %w", st.Path(), err)
	}
	return p.rep, nil
}

// hook calls opt.Hook, one call at a time.
func (p *pusher) hook(point string) error {
	if p.opt.Hook == nil {
		return nil
	}
	p.hookMu.Lock()
	defer p.hookMu.Unlock()
	return p.opt.Hook(point)
}

func (p *pusher) run(ctx context.Context) error {
	if err := p.db.Migrate(ctx); err != nil {
		return err
	}
	if err := p.identify(ctx); err != nil {
		return err
	}
	if err := p.hook("identified"); err != nil {
		return err
	}
	if err := p.loadSessionRows(ctx); err != nil {
		return err
	}
	if err := p.pushEvents(ctx); err != nil {
		return err
	}
	if err := p.pushCompactions(ctx); err != nil {
		return err
	}
	return p.pushSessions(ctx)
}

// identify reads (or gives) the store its id and checks that the rows the
// database holds under it are this store's.
func (p *pusher) identify(ctx context.Context) error {
	id, err := p.st.StoreID(ctx)
	if err != nil {
		return err
	}
	if id == "" {
		mine := NewStoreID()
		if id, err = p.st.EnsureStoreID(ctx, mine); err != nil {
			return err
		}
		p.rep.NewStoreID = id == mine
	} else {
		forked, err := p.forked(ctx, id)
		if err != nil {
			return err
		}
		if forked {
			id = NewStoreID()
			if err := p.st.SetStoreID(ctx, id); err != nil {
				return err
			}
			p.rep.Forked = true
		}
	}
	p.id, p.rep.StoreID = id, id
	_, err = p.db.conn.Exec(ctx, `INSERT INTO lazuli_stores(store_id, machine, username, path, repository)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (store_id) DO UPDATE SET machine = EXCLUDED.machine, username = EXCLUDED.username,
			path = EXCLUDED.path, repository = EXCLUDED.repository, last_push = now()`,
		id, p.opt.Machine, p.opt.User, p.st.Path(), p.opt.Repository)
	return p.db.wrap("record the store", err)
}

// forked reports whether the newest event the database holds under id is
// not this store's: the store is a copy of one pushed before, and the two
// have diverged. Event ids never decrease in a store, so a store whose id
// sequence is below that event's id, or whose event of that id has other
// bytes, is another store.
func (p *pusher) forked(ctx context.Context, id string) (bool, error) {
	var w int64
	var hash []byte
	err := p.db.conn.QueryRow(ctx, `SELECT event_id, src_hash FROM lazuli_events WHERE store_id = $1
		ORDER BY event_id DESC LIMIT 1`, id).Scan(&w, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, p.db.wrap("read the last pushed event", err)
	}
	b, err := p.st.Scan().IDBounds(ctx)
	if err != nil {
		return false, err
	}
	if b.EventSequence > 0 && b.EventSequence < w {
		return true, nil
	}
	var local []byte
	err = p.st.Scan().Events(ctx, store.ScanOptions{After: w - 1, Before: w + 1, Raw: true}, func(evs []store.ScannedEvent) error {
		for _, e := range evs {
			if e.ID == w {
				local = e.Payload
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	if local == nil {
		return false, nil // deleted with its session: nothing to compare
	}
	sum := sha256.Sum256(local)
	return !bytes.Equal(sum[:], hash), nil
}

func (p *pusher) loadSessionRows(ctx context.Context) error {
	list, err := p.st.Scan().Sessions(ctx)
	if err != nil {
		return err
	}
	p.rows = make(map[int64]store.Session, len(list))
	for _, s := range list {
		p.rows[s.ID] = s
	}
	return nil
}

// session returns the session row of id, reading the rows again when id is
// newer than they are; ok is false for a session deleted meanwhile.
func (p *pusher) session(ctx context.Context, id int64) (store.Session, bool, error) {
	if s, ok := p.rows[id]; ok {
		return s, true, nil
	}
	if err := p.loadSessionRows(ctx); err != nil {
		return store.Session{}, false, err
	}
	s, ok := p.rows[id]
	return s, ok, nil
}

// maxID returns the largest id column of table for the store; 0 if none.
func (p *pusher) maxID(ctx context.Context, table, column string) (int64, error) {
	var n *int64
	err := p.db.conn.QueryRow(ctx, `SELECT max(`+column+`) FROM `+table+` WHERE store_id = $1`, p.id).Scan(&n)
	if err != nil || n == nil {
		return 0, p.db.wrap("read what was pushed", err)
	}
	return *n, nil
}

var eventColumns = []string{"store_id", "event_id", "session_id", "session_created", "seq", "kind", "char_len",
	"data", "text", "payload", "src_hash", "redactions"}

var compactionColumns = []string{"store_id", "compaction_id", "session_id", "session_created", "after_seq", "summary", "created", "redactions"}

func (p *pusher) pushCompactions(ctx context.Context) error {
	after, err := p.maxID(ctx, "lazuli_compactions", "compaction_id")
	if err != nil {
		return err
	}
	var rows [][]any
	err = p.st.Scan().Compactions(ctx, after, func(cs []store.Compaction) error {
		for _, c := range cs {
			sess, ok, err := p.session(ctx, c.SessionID)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			n := 0
			if !p.opt.AllowSecrets {
				src := export.Source{Session: store.Session{ID: c.SessionID}, Compactions: []store.Compaction{c}}
				if rep := export.Scan(src); len(rep.Findings) > 0 {
					c = export.Redact(src, rep).Compactions[0]
					for _, f := range rep.Findings {
						for _, l := range f.Locations {
							n++
							p.rep.Redactions = append(p.rep.Redactions, Redaction{SessionID: c.SessionID, Seq: l.Seq, Field: l.Field, Rule: f.Rule, Preview: f.Preview})
						}
					}
				}
			}
			rows = append(rows, []any{p.id, c.ID, c.SessionID, sess.Created, c.AfterSeq, textSafe(c.Summary), c.Created, int32(n)})
		}
		if len(rows) >= p.batch {
			if err := p.copyRows(ctx, "lazuli_compactions", compactionColumns, "store_id, compaction_id", rows); err != nil {
				return err
			}
			p.rep.Compactions += len(rows)
			rows = rows[:0]
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(rows) > 0 {
		if err := p.copyRows(ctx, "lazuli_compactions", compactionColumns, "store_id, compaction_id", rows); err != nil {
			return err
		}
		p.rep.Compactions += len(rows)
	}
	return p.hook("compactions-committed")
}

// copyRows inserts rows into table in one transaction with COPY. Rows
// already there (another pusher of the same store sent them meanwhile) make
// the COPY fail; the batch then goes again with ON CONFLICT DO NOTHING.
func (p *pusher) copyRows(ctx context.Context, table string, columns []string, key string, rows [][]any) error {
	err := inTx(ctx, p.db.conn, func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, p.source(rows)); err != nil {
			return err
		}
		return p.hook(table + "-copied")
	})
	if isDuplicate(err) {
		err = inTx(ctx, p.db.conn, func(tx pgx.Tx) error {
			return insertIgnoring(ctx, tx, table, columns, key, rows)
		})
	}
	return p.db.wrap("send "+strings.TrimPrefix(table, "lazuli_"), err)
}

// source returns rows as a COPY source; with a Hook, it calls the hook
// every hookRows rows, while the COPY is under way.
func (p *pusher) source(rows [][]any) pgx.CopyFromSource {
	if p.opt.Hook == nil {
		return pgx.CopyFromRows(rows)
	}
	return &hookedRows{CopyFromSource: pgx.CopyFromRows(rows), p: p}
}

// hookRows is how often a hooked COPY calls the hook.
const hookRows = 10

type hookedRows struct {
	pgx.CopyFromSource
	p   *pusher
	n   int
	err error
}

func (h *hookedRows) Next() bool {
	if h.n++; h.n%hookRows == 0 {
		if h.err = h.p.hook("copy-row"); h.err != nil {
			return false
		}
	}
	return h.CopyFromSource.Next()
}

func (h *hookedRows) Err() error {
	if h.err != nil {
		return h.err
	}
	return h.CopyFromSource.Err()
}

// inTx runs fn in a transaction on conn and commits it.
func inTx(ctx context.Context, conn *pgx.Conn, fn func(tx pgx.Tx) error) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
