package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// CreateWithEvents creates a session and stores events in it in one
// transaction, so an import either lands whole or not at all. It returns the
// session and the number of rows stored.
func (ss SessionService) CreateWithEvents(ctx context.Context, worktree, name string, events []codec.Event, usage ...Usage) (Session, int, error) {
	return ss.s.Transfer().CreateAt(ctx, worktree, name, "", events, usage...)
}

// MergeReport says what Merge did.
type MergeReport struct {
	Merged  []MergedSession // sessions copied, in the source's id order
	Skipped []MergedSession // exact duplicates of sessions already present
}

// MergedSession maps a source session to its id in the target store.
type MergedSession struct {
	From, To int64
	Name     string // display name
	Events   int64
}

// String summarises the report for people.
func (r MergeReport) String() string {
	var b strings.Builder
	var events int64
	for _, m := range r.Merged {
		events += m.Events
	}
	fmt.Fprintf(&b, "Merged %d session(s) with %d event(s); skipped %d exact duplicate(s).", len(r.Merged), events, len(r.Skipped))
	for _, m := range r.Merged {
		fmt.Fprintf(&b, "\n%s: now S%d (%d events)", m.Name, m.To, m.Events)
	}
	for _, m := range r.Skipped {
		fmt.Fprintf(&b, "\n%s already here as S%d", m.Name, m.To)
	}
	return b.String()
}

// Merge copies every session of src into s under new ids, in one
// transaction: names, worktree, created, completion columns, event payloads
// (byte for byte) and compactions are preserved. Sessions that exactly
// duplicate one already in s are skipped. last_claude_uuid is not carried
// over: it names an agent transcript on the machine src came from.
func (tr TransferService) Merge(ctx context.Context, src *Store) (MergeReport, error) {
	return tr.mergeSessions(ctx, src, nil)
}

// Export writes the sessions ids of s to a new store at path. The
// file is written beside path under a temporary name and renamed into place
// only when complete, so a failed export leaves no partial file.
func (tr TransferService) Export(ctx context.Context, ids []int64, path string) error {
	if len(ids) == 0 {
		return errNothingToExport
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("export sessions: %w", err)
	}
	tmpPath := tmp.Name()
	_ = tmp.Close()                            // the store opens it by name
	defer os.Remove(tmpPath)                   //nolint:errcheck // gone after a successful rename
	if err := os.Remove(tmpPath); err != nil { // Open creates a fresh store on first write
		return fmt.Errorf("export sessions: %w", err)
	}
	dst, err := Open(ctx, tmpPath)
	if err != nil {
		return fmt.Errorf("export sessions: %w", err)
	}
	want := map[int64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	rep, err := dst.Transfer().mergeSessions(ctx, tr.s, want)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil && len(rep.Merged) != len(want) {
		err = fmt.Errorf("%w: %d of %d sessions found", ErrNotFound, len(rep.Merged), len(want))
	}
	if err != nil {
		return fmt.Errorf("export sessions: %w", err)
	}
	if err := os.Rename(tmpPath, path); err != nil {
		return fmt.Errorf("export sessions: %w", err)
	}
	return nil
}

// mergeSessions copies the sessions of src (all, or those in only) into s.
func (tr TransferService) mergeSessions(ctx context.Context, src *Store, only map[int64]bool) (MergeReport, error) {
	var rep MergeReport
	if tr.s.readOnly {
		return rep, fmt.Errorf("merge into %s: %w", tr.s.Path(), ErrReadOnly)
	}
	if !src.Exists() {
		return rep, fmt.Errorf("merge: %s holds no sessions", src.Path())
	}
	sessions, err := src.Sessions().List(ctx, "")
	if err != nil {
		return rep, fmt.Errorf("merge: read %s: %w", src.Path(), err)
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].ID < sessions[j].ID })
	dups, err := tr.Duplicates(ctx, src)
	if err != nil {
		return rep, fmt.Errorf("merge: %w", err)
	}
	copies := make([]sessionCopy, 0, len(sessions))
	for _, sess := range sessions {
		if only != nil && !only[sess.ID] {
			continue
		}
		m := MergedSession{From: sess.ID, Name: sess.DisplayName(), Events: sess.EventCount}
		if to, ok := dups[sess.ID]; ok && only == nil {
			m.To = to
			rep.Skipped = append(rep.Skipped, m)
			continue
		}
		c, err := src.Transfer().readCopy(ctx, sess)
		if err != nil {
			return MergeReport{}, fmt.Errorf("merge: read S%d of %s: %w", sess.ID, src.Path(), err)
		}
		copies = append(copies, c)
		rep.Merged = append(rep.Merged, m)
	}
	if len(copies) == 0 {
		return rep, nil
	}
	err = tr.s.writeTx(ctx, true, func(tx *sql.Tx) error {
		for i := range copies {
			id, err := copies[i].insert(ctx, tx)
			if err != nil {
				return err
			}
			rep.Merged[i].To = id
		}
		return nil
	})
	if err != nil {
		return MergeReport{}, fmt.Errorf("merge into %s: %w", tr.s.Path(), err)
	}
	return rep, nil
}

// sessionCopy is one session's rows, read raw for copying.
type sessionCopy struct {
	sess     Session
	events   []rawEvent
	comps    []Compaction
	full     []rawFull
	thoughts []Thought
}

// rawFull is one row of FullTextTable, read raw for copying.
type rawFull struct {
	seq, size int64
	field     string
	data      []byte
}

type rawEvent struct {
	seq, charLen int64
	kind         string
	data         []byte
}

// readCopy reads a session's raw rows. Payloads that are not zstd frames
// (v1 files stored plain JSON text) are compressed, because AZUREAL can only
// read BLOB frames.
func (tr TransferService) readCopy(ctx context.Context, sess Session) (sessionCopy, error) {
	c := sessionCopy{sess: sess}
	db, _, err := tr.s.reader(ctx)
	if err != nil {
		return c, err
	}
	rows, err := db.QueryContext(ctx, "SELECT seq, kind, data, char_len FROM events WHERE session_id = ? ORDER BY seq", sess.ID)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var r rawEvent
		var data any
		if err := rows.Scan(&r.seq, &r.kind, &data, &r.charLen); err != nil {
			return c, err
		}
		if r.data, err = tr.portablePayload(data); err != nil {
			return c, fmt.Errorf("event %d: %w", r.seq, err)
		}
		c.events = append(c.events, r)
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	if c.comps, err = tr.s.Compactions().Of(ctx, sess.ID); err != nil {
		return c, err
	}
	if c.full, err = readFullCopy(ctx, db, sess); err != nil {
		return c, err
	}
	c.thoughts, err = thoughtsIn(ctx, db, sess.ID, minSeq, maxSeq)
	return c, err
}

// readFullCopy reads the full text rows of a session, raw.
func readFullCopy(ctx context.Context, db querier, sess Session) ([]rawFull, error) {
	if ok, err := hasFullTextTable(ctx, db); err != nil || !ok {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT seq, field, size, data FROM lazuli_full_text
		WHERE session_id = ? AND session_created = ? ORDER BY seq`, sess.ID, sess.Created)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []rawFull
	for rows.Next() {
		var r rawFull
		if err := rows.Scan(&r.seq, &r.field, &r.size, &r.data); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// portablePayload returns a data value as a zstd BLOB, copying frames as
// they are.
func (tr TransferService) portablePayload(data any) ([]byte, error) {
	var b []byte
	switch v := data.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		return nil, fmt.Errorf("data has storage class %T", data)
	}
	if bytes.HasPrefix(b, codec.ZstdMagic) {
		return bytes.Clone(b), nil
	}
	js, err := tr.s.codec.Payload(b)
	if err != nil {
		return nil, err
	}
	return tr.s.codec.Compress(js), nil
}

// insert writes the copy as a new session and returns its id.
func (c *sessionCopy) insert(ctx context.Context, tx *sql.Tx) (int64, error) {
	s := c.sess
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions(name, worktree, created, completed, duration_ms, cost_usd)
		VALUES (?, ?, ?, ?, ?, ?)`, s.Name, s.Worktree, s.Created, nullBool(s.Completed), s.DurationMS, s.CostUSD)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	ins, err := tx.PrepareContext(ctx, "INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	for _, e := range c.events {
		if _, err := ins.ExecContext(ctx, id, e.seq, e.kind, e.data, e.charLen); err != nil {
			return 0, err
		}
	}
	for _, cp := range c.comps {
		if _, err := tx.ExecContext(ctx, "INSERT INTO compactions(session_id, after_seq, summary, created) VALUES (?, ?, ?, ?)",
			id, cp.AfterSeq, cp.Summary, cp.Created); err != nil {
			return 0, err
		}
	}
	if len(c.full) > 0 {
		if _, err := tx.ExecContext(ctx, fullTextSchema); err != nil {
			return 0, fmt.Errorf("create %s: %w", FullTextTable, err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM lazuli_full_text WHERE session_id = ?", id); err != nil {
			return 0, err // rows a delete with foreign keys off left under this id
		}
	}
	for _, f := range c.full {
		if _, err := tx.ExecContext(ctx, `INSERT INTO lazuli_full_text(session_id, seq, session_created, field, size, data)
			VALUES (?, ?, ?, ?, ?, ?)`, id, f.seq, s.Created, f.field, f.size, f.data); err != nil {
			return 0, fmt.Errorf("copy full text: %w", err)
		}
	}
	if len(c.thoughts) > 0 {
		if err := createThinkingTable(ctx, tx); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM lazuli_thinking WHERE session_id = ?", id); err != nil {
			return 0, err // rows a delete with foreign keys off left under this id
		}
		if err := insertThinking(ctx, tx, id, c.thoughts); err != nil {
			return 0, fmt.Errorf("copy thinking: %w", err)
		}
	}
	return id, nil
}

func nullBool(b *bool) any {
	if b == nil {
		return nil
	}
	if *b {
		return 1
	}
	return 0
}

// Duplicates maps each session of src that exactly duplicates a session of
// s (same name, worktree, created, completion, event payloads and
// compactions) to the id of that session in s.
func (tr TransferService) Duplicates(ctx context.Context, src *Store) (map[int64]int64, error) {
	dups := map[int64]int64{}
	if !tr.s.Exists() || !src.Exists() {
		return dups, nil
	}
	mine, err := tr.s.Sessions().List(ctx, "")
	if err != nil {
		return nil, err
	}
	theirs, err := src.Sessions().List(ctx, "")
	if err != nil {
		return nil, err
	}
	candidates := map[string][]Session{}
	for _, m := range mine {
		candidates[cheapKey(m)] = append(candidates[cheapKey(m)], m)
	}
	for _, t := range theirs {
		for _, m := range candidates[cheapKey(t)] {
			same, err := sameSession(ctx, tr.s, m, src, t)
			if err != nil {
				return nil, err
			}
			if same {
				dups[t.ID] = m.ID
				break
			}
		}
	}
	return dups, nil
}

// cheapKey groups sessions that may be duplicates without reading events.
func cheapKey(s Session) string {
	return fmt.Sprintf("%q|%q|%q|%v|%d|%d", s.Name, s.Worktree, s.Created, nullBool(s.Completed), s.EventCount, s.MessageCount)
}

func sameSession(ctx context.Context, a *Store, as Session, b *Store, bs Session) (bool, error) {
	ha, err := a.Transfer().fingerprint(ctx, as)
	if err != nil {
		return false, err
	}
	hb, err := b.Transfer().fingerprint(ctx, bs)
	return ha == hb, err
}

// fingerprint hashes a session's decoded payloads and compactions.
func (tr TransferService) fingerprint(ctx context.Context, sess Session) ([32]byte, error) {
	c, err := tr.readCopy(ctx, sess)
	if err != nil {
		return [32]byte{}, err
	}
	return tr.fingerprintCopy(c)
}

// fingerprintCopy hashes a session copy's decoded payloads, compactions
// and duration.
func (tr TransferService) fingerprintCopy(c sessionCopy) ([32]byte, error) {
	sess := c.sess
	h := sha256.New()
	var n [8]byte
	for _, e := range c.events {
		js, err := tr.s.codec.Payload(e.data)
		if err != nil {
			return [32]byte{}, err
		}
		binary.LittleEndian.PutUint64(n[:], uint64(e.seq))
		h.Write(n[:])
		fmt.Fprintf(h, "%s|%d|%d|", e.kind, e.charLen, len(js))
		h.Write(js)
	}
	for _, cp := range c.comps {
		fmt.Fprintf(h, "C%d|%d|%s", cp.AfterSeq, len(cp.Summary), cp.Summary)
	}
	if sess.DurationMS != nil {
		fmt.Fprintf(h, "D%d", *sess.DurationMS)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// errNothingToExport is returned when an export names no session.
var errNothingToExport = errors.New("no session to export")

// CreateAt is Sessions().CreateWithEvents with the session's created
// time set (in TimeFormat, UTC) rather than the time of the insert, as an
// import dates a session when it ran. An empty created means now.
func (tr TransferService) CreateAt(ctx context.Context, worktree, name, created string, events []codec.Event, usage ...Usage) (Session, int, error) {
	b := tr.s.encodeAsync(events)
	defer b.finish()
	if _, err := b.chunk(0); err != nil {
		return Session{}, 0, fmt.Errorf("import session: %w", err)
	}
	var id int64
	var n int
	err := tr.s.writeTx(ctx, true, func(tx *sql.Tx) error {
		query, args := "INSERT INTO sessions(worktree, name) VALUES (?, ?)", []any{worktree, name}
		if created != "" {
			query, args = "INSERT INTO sessions(worktree, name, created) VALUES (?, ?, ?)", append(args, created)
		}
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		if n, err = insertEvents(ctx, tx, id, b); err != nil {
			return err
		}
		return insertUsage(ctx, tx, id, b, usage)
	})
	if err != nil {
		return Session{}, 0, fmt.Errorf("import session into %q: %w", worktree, err)
	}
	sess, err := tr.s.Sessions().Get(ctx, id)
	return sess, n, err
}
