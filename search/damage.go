package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// ErrDamaged reports an index whose file or rows are not what Lazuli
// wrote: SQLite or a block's checksum found corruption, a table is missing, or the index
// named an event as a candidate whose text lacks a 4-gram of the query.
// Open, Update and Search start such an index over by themselves and say
// so (Stats.Damaged, a Result's Note); callers see ErrDamaged only when
// the rebuild itself fails.
var ErrDamaged = errors.New("search index is damaged")

// quickCheckLimit is the largest index file Open runs PRAGMA quick_check
// on. It reads the whole file at about
// 60 ms per MiB (1.7 s for a 29 MiB index of 40,000 events, 2 cores), so
// a larger index is checked by use instead: every corruption error SQLite
// reports, and every candidate checked against the store.
const quickCheckLimit = 2 << 20

// indexTables are the tables an index file must hold.
var indexTables = []string{"meta", "sessions", "docs", "segs", "blocks", "gone"}

// damageCheck looks for damage in an index file: when Open cannot trust
// it (quickCheck, verifySample) and when a search finds a candidate that
// is not what the index says (falseCandidate, unknownCandidates). It reads
// the index through the readers r and the store st.
type damageCheck struct {
	st   *store.Store
	r    *sql.DB
	path string
}

// checkOf returns the damage checks of x's file as its pools are now
// (x.dbMu held).
func checkOf(x *Index) damageCheck { return damageCheck{st: x.st, r: x.r, path: x.path} }

// DamagedNote tells the user that the index of the store at storePath was
// found damaged and rebuilt (Stats.Damaged).
func DamagedNote(storePath string) string {
	return "The search index of " + storePath + " was damaged; it was rebuilt."
}

// missingTable returns the first table of indexTables the file lacks, ""
// when it has them all.
func missingTable(ctx context.Context, tx *sql.Tx) (string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", err
		}
		have[n] = true
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	for _, t := range indexTables {
		if !have[t] {
			return t, nil
		}
	}
	return "", nil
}

// quickCheck runs PRAGMA quick_check on a small index file; an error
// wrapping ErrDamaged when it finds a problem.
func (d damageCheck) quickCheck(ctx context.Context) error {
	fi, err := os.Stat(d.path)
	if err != nil || fi.Size() > quickCheckLimit {
		return err
	}
	rows, err := d.r.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: quick_check: %s", ErrDamaged, strings.Join(problems, "; "))
	}
	return nil
}

// Open reads back a sample of what the index holds, unless the file is
// as the last Lazuli process to close it sealed it (indexdb.Seal: nothing
// outside Lazuli changed it since): every row when it
// has verifyAll or fewer, each looked up by up to verifyGramsAll of its
// 4-grams; else verifyNewest newest rows and verifySpread spread evenly
// over the rest, by up to verifyGrams (a term's list is long in a large
// index, and reading it costs). A list that a damaged page cut short, or
// a term whose bytes changed, loses the rows of the sample that hold it.
// BenchmarkIndexOpen: about 30 ms for 200 rows, and for a 22 MiB index of
// 20,000 events (2 cores, both busy).
const (
	verifyAll      = 200
	verifyGramsAll = 64
	verifyNewest   = 16
	verifySpread   = 16
	verifyGrams    = 16
)

// verifySample checks that the index finds a sample of its rows by their
// own 4-grams; an error wrapping ErrDamaged when one is missing.
func (d damageCheck) verifySample(ctx context.Context) error {
	ids, all, err := d.sampleIDs(ctx)
	if err != nil || len(ids) == 0 {
		return err
	}
	grams := verifyGrams
	if all {
		grams = verifyGramsAll
	}
	rows, err := d.sampleRows(ctx, ids)
	if err != nil {
		return err
	}
	list, err := d.st.Scan().Sessions(ctx)
	if err != nil {
		return err
	}
	sessions := make(map[int64]store.Session, len(list))
	created := make(map[int64]string, len(list))
	for _, s := range list {
		sessions[s.ID], created[s.ID] = s, s.Created
	}
	// Another file at the store's path is no damage: Update starts the
	// index over for it (sameStore).
	m, err := readMarks(ctx, d.r)
	if err != nil || m.fresh {
		return err
	}
	b, err := d.st.Scan().IDBounds(ctx)
	if err != nil {
		return err
	}
	if same, err := sameStore(ctx, d.st, m, b, sessions); err != nil || !same {
		return err
	}
	// One read transaction: what docs and the lists say is one state of the
	// file, whatever another process's Update does meanwhile.
	tx, err := d.r.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read only
	r, err := newReader(ctx, tx)
	if err != nil {
		return err
	}
	defer r.close()
	var g gramSet
	for _, e := range rows {
		all := g.ofText(e.text)
		if len(all) == 0 {
			continue
		}
		picked := all
		if len(all) > grams {
			picked = make([]uint32, grams)
			for k := range picked {
				picked[k] = all[k*(len(all)-1)/(grams-1)]
			}
		}
		parts := make([]gramRange, len(picked))
		for k, v := range picked {
			parts[k] = gramRange{v, v}
		}
		var session int64
		var docCreated string
		err := tx.QueryRowContext(ctx, docsRowQuery, e.id).Scan(&session, &docCreated)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (session != e.session || docCreated != created[session])) {
			continue // purged, or another event with the id since the last Update: not damage
		}
		if err != nil {
			return err
		}
		found, err := r.has(parts, e.id)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: event %d is no longer found by its own words", ErrDamaged, e.id)
		}
	}
	return nil
}

// sampleRow is what verifySample needs of an event: its text as the
// index holds it (what the card shows, then the full text: scannedText),
// copied, so that the decoded event itself is not kept.
type sampleRow struct {
	id, session int64
	text        string
}

// sampleRows reads the events of ids that have text; when together they
// decode to more than one load reads (store.MaxLoadBytes), one at a time,
// so that memory stays bounded, leaving out any that alone is too large.
func (d damageCheck) sampleRows(ctx context.Context, ids []int64) ([]sampleRow, error) {
	var rows []sampleRow
	add := func(evs []store.ScannedEvent) error {
		if err := d.st.FullText().Attach(ctx, evs); err != nil {
			return err
		}
		for i := range evs {
			if text, _ := scannedText(&evs[i]); evs[i].Event.Kind != "" && text != "" {
				rows = append(rows, sampleRow{evs[i].ID, evs[i].SessionID, strings.Clone(text)})
			}
		}
		return nil
	}
	evs, err := d.st.Scan().EventsByID(ctx, ids)
	var tooMuch *store.LoadLimitError
	if !errors.As(err, &tooMuch) {
		if err != nil {
			return nil, err
		}
		return rows, add(evs)
	}
	for _, id := range ids {
		one, err := d.st.Scan().EventsByID(ctx, []int64{id})
		switch {
		case errors.As(err, &tooMuch):
		case err != nil:
			return nil, err
		default:
			if err := add(one); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// sampleIDs returns the ids of the events verifySample reads back, and
// whether they are all the index holds.
func (d damageCheck) sampleIDs(ctx context.Context) ([]int64, bool, error) {
	var n, lo, hi int64
	if err := d.r.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM docs WHERE id > 0").Scan(&n, &lo, &hi); err != nil {
		return nil, false, err
	}
	if n <= verifyAll {
		ids, err := d.queryIDs(ctx, "SELECT id FROM docs WHERE id > 0")
		return ids, true, err
	}
	ids, err := d.queryIDs(ctx, "SELECT id FROM docs WHERE id > 0 ORDER BY id DESC LIMIT ?", verifyNewest)
	if err != nil {
		return nil, false, err
	}
	for k := range int64(verifySpread) {
		more, err := d.queryIDs(ctx, "SELECT id FROM docs WHERE id >= ? ORDER BY id LIMIT 1", lo+k*(hi-lo)/verifySpread)
		if err != nil {
			return nil, false, err
		}
		ids = append(ids, more...)
	}
	return ids, false, nil
}

func (d damageCheck) queryIDs(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := d.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// lacksGram reports whether the text of a candidate the index returned
// lacks a 4-gram of a term of q (or, for a term of three bytes, the term):
// the index has every 4-gram of every text it holds, so a correct index
// never returns such a candidate, however the words are spread.
func (q *query) lacksGram(text string) bool {
	low, _ := fold(text)
	for _, t := range q.terms {
		if utf8.RuneCountInString(t) < indexTermRunes {
			continue // not looked up in the index
		}
		for _, g := range pickGrams(t) { // the grams matchExpression looks up, no others
			if !strings.Contains(low, g) {
				return true
			}
		}
	}
	return false
}

// falseCandidate reports whether e, a candidate that did not match, shows
// the index to be damaged: it lacks a 4-gram of the query although the
// index recorded it for the same session (an id given to another event
// since the last Update is not damage).
func (d damageCheck) falseCandidate(ctx context.Context, hb *hitBuilder, e *store.ScannedEvent) (bool, error) {
	text, _ := scannedText(e) // the index holds the grams of the full text too
	s, ok := hb.session(e.SessionID)
	if !ok || e.Event.Kind == "" || !hb.q.lacksGram(text) {
		return false, hb.err()
	}
	return d.inconsistentRow(ctx, hb.q.parts, e.ID, e.SessionID, s.Created)
}

// docsRowQuery reads the session docs holds a row for, and when the index
// saw that session created (AZUREAL gives a deleted session's id to the
// next one, and SQLite a deleted event's id to the next event).
const docsRowQuery = "SELECT d.session, COALESCE(s.created, '') FROM docs d LEFT JOIN sessions s ON s.id = d.session WHERE d.id = ?"

// inconsistentRow reports whether row id, a candidate for parts, is
// still one and disagrees with docs: docs lacks it although its postings
// are not stale (see postings.go), or (session > 0) holds it for that
// session, created at created, although its text does not match. It reads
// the lists and docs in one read transaction, so that an Update of another
// process purging the row between two statements cannot look like damage.
func (d damageCheck) inconsistentRow(ctx context.Context, parts []gramRange, id, session int64, created string) (bool, error) {
	tx, err := d.r.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() //nolint:errcheck // read only
	r, err := newReader(ctx, tx)
	if err != nil {
		return false, err
	}
	defer r.close()
	candidate, err := r.has(parts, id)
	if err != nil || !candidate {
		return false, err // purged since the search began
	}
	var docSession int64
	var docCreated string
	err = tx.QueryRowContext(ctx, docsRowQuery, id).Scan(&docSession, &docCreated)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		gone, err := isGone(ctx, tx, id)
		return !gone, err // in the lists but not in docs, and not purged: the two disagree
	case err != nil:
		return false, err
	}
	if gone, err := isGone(ctx, tx, id); err != nil || gone {
		return false, err // an id SQLite gave again: its old postings may stay
	}
	return session > 0 && docSession == session && docCreated == created, nil
}

// unknownCandidates checks the candidates the store no longer has (evs
// lacks them): a deleted session's rows stay in docs until the next
// Update purges them, but a candidate that docs never held means that the
// lists name a row the index never wrote: an error wrapping ErrDamaged.
func (d damageCheck) unknownCandidates(ctx context.Context, parts []gramRange, ids []int64, evs []store.ScannedEvent) error {
	found := make(map[int64]bool, len(evs))
	for i := range evs {
		found[evs[i].ID] = true
	}
	for _, id := range ids {
		if found[id] {
			continue
		}
		bad, err := d.inconsistentRow(ctx, parts, id, 0, "")
		if err != nil {
			return err
		}
		if bad {
			return fmt.Errorf("%w: the index returned row %d, which it never wrote", ErrDamaged, id)
		}
	}
	return nil
}

// isDamage reports an error that means the index must be started over.
func isDamage(err error) bool { return errors.Is(err, ErrDamaged) || indexdb.IsDamaged(err) }

// rebuildDamaged starts a damaged index over and builds it again.
func (x *Index) rebuildDamaged(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.dbMu.Lock()
	err := x.recreateLocked(ctx)
	x.dbMu.Unlock()
	if err != nil {
		return err
	}
	s := Stats{Rebuilt: true, Damaged: true}
	return cancelled(ctx, x.update(ctx, &s, nil))
}
