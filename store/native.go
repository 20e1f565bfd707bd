package store

// This file keeps the record of native agent history imported into a store:
// which of the agents' own transcript files (~/.claude/projects,
// ~/.codex/sessions and the other agents' folders) became which session,
// and how far each file was read, so that importing again appends only
// what is new.
//
// The record is one table that AZUREAL does not know, lazuli_native_imports.
// SQLite lets AZUREAL ignore it: AZUREAL's schema script and migration only
// touch its own four tables, and its queries name them. The table is created
// by the first import that writes, never by opening or reading, and its rows
// go with their session (ON DELETE CASCADE, with foreign_keys on as both
// programs set it). Merge and Transfer().Export do not copy it: its paths name
// files on this machine, and an exported file is meant for AZUREAL.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lazuli-app/lazuli/codec"
)

// nativeSchema creates NativeTable and its index. The session's created
// text is kept beside its id because AZUREAL reuses the ids of deleted
// sessions: a row whose session was deleted by a program with foreign keys
// off must not send new events into an unrelated session that got its id.
var nativeSchema = []string{
	`CREATE TABLE IF NOT EXISTS lazuli_native_imports (
    agent           TEXT NOT NULL,
    native_id       TEXT NOT NULL,
    parent_id       TEXT NOT NULL DEFAULT '',
    session_id      INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    session_created TEXT NOT NULL,
    source_path     TEXT NOT NULL,
    bytes           INTEGER NOT NULL,
    lines           INTEGER NOT NULL,
    checksum        TEXT NOT NULL,
    imported        TEXT NOT NULL DEFAULT (datetime('now')),
    file_size       INTEGER NOT NULL DEFAULT -1,
    file_mtime      INTEGER NOT NULL DEFAULT 0,
    file_inode      INTEGER NOT NULL DEFAULT 0,
    resume          BLOB,
    PRIMARY KEY (agent, native_id)
)`,
	`CREATE INDEX IF NOT EXISTS idx_lazuli_native_imports_session ON lazuli_native_imports(session_id)`,
}

// nativeStatColumns were added to NativeTable after its first release: a
// table created before gets them on the next import that writes (SQLite
// adds a column with a constant default without rewriting the table).
var nativeStatColumns = []struct{ name, decl string }{
	{"file_size", "INTEGER NOT NULL DEFAULT -1"},
	{"file_mtime", "INTEGER NOT NULL DEFAULT 0"},
	{"file_inode", "INTEGER NOT NULL DEFAULT 0"},
}

// nativeResumeColumn was added after nativeStatColumns: what the
// importer needs to go on from the end of the lines read (the agents
// package's parser state), so that a later import reads only what was
// appended. NULL means none: the file is read from its start again.
const nativeResumeColumn = "resume"

// hasNativeColumn reports whether NativeTable has the column name.
func hasNativeColumn(ctx context.Context, q querier, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?", NativeTable, name).Scan(&n)
	return n > 0, err
}

// hasNativeStat reports whether NativeTable has the stat columns.
func hasNativeStat(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = 'file_size'", NativeTable).Scan(&n)
	return n > 0, err
}

// FileStat is what the file system says of a native transcript file when
// it was read: with it, a later import that finds the same size,
// modification time and inode knows the file is unchanged without reading
// it. Size -1 means unknown (a record written before Lazuli kept it).
type FileStat struct {
	Size    int64
	ModTime int64 // Unix nanoseconds
	Inode   uint64
}

// ErrNativeConflict reports that a native session's record changed between
// reading it and importing: another process imported the same native
// session meanwhile. Nothing of the failed NativeService.Import call was
// written.
var ErrNativeConflict = errors.New("the native session was imported by another process meanwhile")

// NativeKey names a native session: the agent ("claude" or "codex") and
// the agent's own id for it.
type NativeKey struct {
	Agent string
	ID    string
}

// String returns "agent/id".
func (k NativeKey) String() string { return k.Agent + "/" + k.ID }

// NativeImport is one row of the record: which session a native transcript
// file became and how far the file was read.
type NativeImport struct {
	NativeKey
	ParentID       string // native id of the session that started this sub-agent; "" for a main session
	SessionID      int64
	SessionCreated string // the session's created text when it was imported
	Path           string // the transcript file
	Bytes          int64  // length of the complete lines read (the file offset to go on from)
	Lines          int64  // number of those lines
	Checksum       string // identifies those bytes; see the agents package
	Imported       string // when the row was last written, "YYYY-MM-DD HH:MM:SS" UTC
	Stat           FileStat
}

// NativeBatch is what NativeService.Import writes for one native transcript file.
type NativeBatch struct {
	Key      NativeKey
	ParentID string
	Path     string
	Bytes    int64
	Lines    int64
	Checksum string
	Stat     FileStat // the file's, taken before it was read
	// Resume is what a later import needs to go on from Bytes (opaque
	// here; see NativeService.Resume). Nil with Bytes equal to Prev's
	// keeps the record's; nil otherwise stores none.
	Resume []byte
	Events []codec.Event // stored by AppendEvents' rules
	Usage  []Usage       // token usage of Events, kept in UsageTable
	// Prev is the record this batch continues, as Imports returned
	// it: Events are appended to its session. Nil means a new session
	// with Worktree, Name and Created (in TimeFormat).
	Prev *NativeImport
	// Reimport, with Prev, stores Events in a new session instead and
	// moves the record to it; Prev's session is kept as it is.
	Reimport bool
	Worktree string
	Name     string
	Created  string
	// encoded is Events encoded by NativeService.Encode; nil: Import
	// encodes them.
	encoded *encodedBatch
}

// Encode encodes b's events for the store on the calling goroutine, so
// that Import only has to write them. An import reads and parses its
// sessions on every core while one goroutine writes the store; encoding
// (compaction, JSON and zstd) done by the readers is work taken off that
// writer. The error is that of an event that cannot be stored, on which
// Import would fail too. b.Events must not change afterwards.
func (n NativeService) Encode(b *NativeBatch) error {
	e := n.s.encodeNow(b.Events)
	for _, err := range e.errs {
		if err != nil {
			return err
		}
	}
	b.encoded = e
	return nil
}

// NativeResult says what NativeService.Import did with one batch.
type NativeResult struct {
	SessionID      int64
	SessionCreated string // the session's created time (TimeFormat)
	Events         int    // rows stored
	Created        bool   // a new session
	// Rows are the events stored, with their ids, as ScanService.Events
	// and FullTextService.Attach would read them back: for a search index to take
	// them without reading the store again.
	Rows []ScannedEvent
}

// Imports returns the record of imported native transcripts, by key.
// A store without the table (every store that never imported native
// history) yields an empty map. Rows whose session is gone, or now holds a
// different session under a reused id, are left out: their native session
// counts as not imported.
func (n NativeService) Imports(ctx context.Context) (map[NativeKey]NativeImport, error) {
	out := map[NativeKey]NativeImport{}
	db, _, err := n.s.reader(ctx)
	if err != nil || db == nil {
		return out, wrapNative(err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, wrapNative(classify(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	if ok, err := hasNativeTable(ctx, tx); err != nil || !ok {
		return out, wrapNative(classify(err))
	}
	stat := "-1, 0, 0"
	if ok, err := hasNativeStat(ctx, tx); err != nil {
		return nil, wrapNative(classify(err))
	} else if ok {
		stat = "n.file_size, n.file_mtime, n.file_inode"
	}
	rows, err := tx.QueryContext(ctx, `SELECT n.agent, n.native_id, n.parent_id, n.session_id, n.session_created,
		n.source_path, n.bytes, n.lines, n.checksum, n.imported, `+stat+`
		FROM lazuli_native_imports n JOIN sessions s ON s.id = n.session_id AND s.created = n.session_created`)
	if err != nil {
		return nil, wrapNative(classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var r NativeImport
		var inode int64
		if err := rows.Scan(&r.Agent, &r.ID, &r.ParentID, &r.SessionID, &r.SessionCreated,
			&r.Path, &r.Bytes, &r.Lines, &r.Checksum, &r.Imported, &r.Stat.Size, &r.Stat.ModTime, &inode); err != nil {
			return nil, wrapNative(err)
		}
		r.Stat.Inode = uint64(inode)
		out[r.NativeKey] = r
	}
	return out, wrapNative(classify(rows.Err()))
}

func wrapNative(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read native imports: %w", err)
}

// hasNativeTable reports whether the file has NativeTable.
func hasNativeTable(ctx context.Context, q querier) (bool, error) {
	return hasTable(ctx, q, NativeTable)
}

// Import stores batches in one transaction: each batch either creates
// a session with its events or appends its events to the session of its
// Prev record, and writes the batch's record. Either every batch lands,
// with its record, or nothing does, so a process killed at any point
// leaves the store as it was or with the whole import. When a record is no
// longer what the caller read (a batch without Prev whose key now has a
// record, or a Prev that changed), it fails with ErrNativeConflict.
// The record table is created by the first call that writes.
func (n NativeService) Import(ctx context.Context, batches []NativeBatch) ([]NativeResult, error) {
	s := n.s
	if len(batches) == 0 {
		return nil, nil
	}
	encoded, err := s.encodeBatches(len(batches), func(i int) []codec.Event { return batches[i].Events },
		func(i int) *encodedBatch { return batches[i].encoded })
	defer finishBatches(encoded)
	if err != nil {
		return nil, fmt.Errorf("import native session %s: %w", batches[len(encoded)-1].Key, err)
	}
	results := make([]NativeResult, len(batches))
	err = s.writeTx(ctx, true, func(tx *sql.Tx) error {
		if err := createNativeTable(ctx, tx); err != nil {
			return err
		}
		ctx, done := withTxStatements(ctx, tx)
		defer done()
		for i := range batches {
			encoded[i].collect = !n.noRows
			r, err := importNativeBatch(ctx, tx, &batches[i], encoded[i])
			if err != nil {
				return fmt.Errorf("import native session %s: %w", batches[i].Key, err)
			}
			results[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// createNativeTable creates NativeTable, or adds the columns added since
// to one created without them.
func createNativeTable(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range nativeSchema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create %s: %w", NativeTable, err)
		}
	}
	ok, err := hasNativeStat(ctx, tx)
	if err != nil {
		return err
	}
	add := func(name, decl string) error {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+NativeTable+" ADD COLUMN "+name+" "+decl); err != nil {
			return fmt.Errorf("add %s.%s: %w", NativeTable, name, err)
		}
		return nil
	}
	for _, c := range nativeStatColumns {
		if !ok {
			if err := add(c.name, c.decl); err != nil {
				return err
			}
		}
	}
	if ok, err := hasNativeColumn(ctx, tx, nativeResumeColumn); err != nil || ok {
		return err
	}
	return add(nativeResumeColumn, "BLOB")
}

// Resume returns what the record of key keeps for an import to go on from
// its end (NativeBatch.Resume), when the record still ends at bytes with
// checksum (as the caller's copy of it does); nil when it keeps none, or
// when the record moved on meanwhile.
func (n NativeService) Resume(ctx context.Context, key NativeKey, bytes int64, checksum string) ([]byte, error) {
	db, _, err := n.s.reader(ctx)
	if err != nil || db == nil {
		return nil, wrapNative(err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, wrapNative(classify(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	if ok, err := hasNativeColumn(ctx, tx, nativeResumeColumn); err != nil || !ok {
		return nil, wrapNative(classify(err))
	}
	var blob []byte
	err = tx.QueryRowContext(ctx, `SELECT resume FROM lazuli_native_imports WHERE agent = ? AND native_id = ? AND bytes = ? AND checksum = ?`,
		key.Agent, key.ID, bytes, checksum).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return blob, wrapNative(classify(err))
}

// importNativeBatch writes one batch inside Import's transaction.
func importNativeBatch(ctx context.Context, tx *sql.Tx, b *NativeBatch, enc *encodedBatch) (NativeResult, error) {
	cur, err := currentNative(ctx, tx, b.Key)
	if err != nil {
		return NativeResult{}, err
	}
	var r NativeResult
	created := b.Created
	switch {
	case b.Prev == nil && cur != nil:
		return r, ErrNativeConflict
	case b.Prev != nil && (cur == nil || cur.SessionID != b.Prev.SessionID || cur.Bytes != b.Prev.Bytes || cur.Checksum != b.Prev.Checksum):
		return r, ErrNativeConflict
	case b.Prev != nil && !b.Reimport:
		r.SessionID, created = cur.SessionID, cur.SessionCreated
	default:
		res, err := execCached(ctx, tx, "INSERT INTO sessions(worktree, name, created) VALUES (?, ?, ?)", b.Worktree, b.Name, created)
		if err != nil {
			return r, err
		}
		if r.SessionID, err = res.LastInsertId(); err != nil {
			return r, err
		}
		r.Created = true
	}
	if r.Events, err = insertEvents(ctx, tx, r.SessionID, enc); err != nil {
		return r, err
	}
	r.SessionCreated, r.Rows = created, enc.stored
	if err := insertUsage(ctx, tx, r.SessionID, enc, b.Usage); err != nil {
		return r, err
	}
	// A batch without Resume that read nothing new (a new stat only) keeps
	// the record's Resume, which still ends where the record does.
	_, err = execCached(ctx, tx, `INSERT INTO lazuli_native_imports
		(agent, native_id, parent_id, session_id, session_created, source_path, bytes, lines, checksum, imported,
		 file_size, file_mtime, file_inode, resume)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, datetime('now'), ?, ?, ?, ?)
		ON CONFLICT (agent, native_id) DO UPDATE SET
		 parent_id = excluded.parent_id, session_id = excluded.session_id, session_created = excluded.session_created,
		 source_path = excluded.source_path, lines = excluded.lines, imported = excluded.imported,
		 file_size = excluded.file_size, file_mtime = excluded.file_mtime, file_inode = excluded.file_inode,
		 resume = CASE WHEN excluded.resume IS NULL AND bytes = excluded.bytes AND checksum = excluded.checksum
		  AND session_id = excluded.session_id THEN resume ELSE excluded.resume END,
		 bytes = excluded.bytes, checksum = excluded.checksum`,
		b.Key.Agent, b.Key.ID, b.ParentID, r.SessionID, created, b.Path, b.Bytes, b.Lines, b.Checksum,
		b.Stat.Size, b.Stat.ModTime, int64(b.Stat.Inode), nullBlob(b.Resume))
	if err != nil {
		return r, fmt.Errorf("record import: %w", err)
	}
	return r, nil
}

// nullBlob is b as an SQL value: NULL when empty.
func nullBlob(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// currentNative reads the live record of key inside a write transaction;
// nil when there is none or its session is gone.
func currentNative(ctx context.Context, tx *sql.Tx, key NativeKey) (*NativeImport, error) {
	r := NativeImport{NativeKey: key}
	err := queryRowCached(ctx, tx, `SELECT n.session_id, n.session_created, n.bytes, n.checksum
		FROM lazuli_native_imports n JOIN sessions s ON s.id = n.session_id AND s.created = n.session_created
		WHERE n.agent = ? AND n.native_id = ?`, key.Agent, key.ID).Scan(&r.SessionID, &r.SessionCreated, &r.Bytes, &r.Checksum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// checkNative reports the record table as information, and rows that no
// longer lead to their session (left by a program that deleted sessions
// with foreign keys off) as a warning: they are ignored, nothing is lost.
func checkNative(ctx context.Context, q querier, fs *findings) error {
	return checkOwnTable(ctx, q, fs, ownTable{name: NativeTable, code: "native_imports", count: sessionRowsQuery(NativeTable, "n"),
		info:  "table %s records %d imported native transcript(s); it is Lazuli's own, AZUREAL ignores it",
		stale: "%d row(s) of %s name a session that no longer exists; the next import treats them as new"})
}
