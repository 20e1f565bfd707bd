package teamsync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SchemaVersion is the version of the team schema this Lazuli writes and
// reads. Migrations are forward-only: migrations[v-1] takes a database
// from version v-1 to v.
const SchemaVersion = 2

const closeTimeout = 5 * time.Second

// schemaLock is the advisory lock key that serializes migrations.
const schemaLock = 0x6c617a756c69 // "lazuli"

// migration is one step of the schema: its statements, then its Go part
// (nil for none), in one transaction.
type migration struct {
	stmts []string
	fn    func(ctx context.Context, tx pgx.Tx) error
}

// migrations are the schema's steps, each run in one transaction.
var migrations = []migration{
	{stmts: []string{ // 1: the first schema
		`CREATE EXTENSION IF NOT EXISTS pg_trgm`,
		`CREATE TABLE lazuli_stores (
			store_id   text PRIMARY KEY,
			machine    text NOT NULL,
			username   text NOT NULL,
			path       text NOT NULL,
			repository text NOT NULL DEFAULT '',
			first_push timestamptz NOT NULL DEFAULT now(),
			last_push  timestamptz NOT NULL DEFAULT now()
		)`,
		`CREATE TABLE lazuli_sessions (
			team_id    bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
			store_id   text NOT NULL,
			session_id bigint NOT NULL,
			created    text NOT NULL,
			created_day date,
			name       text NOT NULL,
			worktree   text NOT NULL,
			repository text NOT NULL DEFAULT '',
			machine    text NOT NULL,
			username   text NOT NULL,
			completed  boolean,
			duration_ms bigint,
			cost_usd   double precision,
			last_claude_uuid text NOT NULL DEFAULT '',
			event_count bigint NOT NULL DEFAULT 0,
			message_count bigint NOT NULL DEFAULT 0,
			chars_since_compaction bigint NOT NULL DEFAULT 0,
			last_event_id bigint NOT NULL DEFAULT 0,
			turns bigint NOT NULL DEFAULT 0,
			input_tokens bigint, output_tokens bigint, cache_read_tokens bigint,
			cache_write_tokens bigint, reasoning_tokens bigint,
			usage_cost_usd double precision, cost_estimated boolean NOT NULL DEFAULT false,
			row_hash   bytea NOT NULL,
			pushed_at  timestamptz NOT NULL DEFAULT now(),
			PRIMARY KEY (store_id, session_id, created)
		)`,
		`CREATE INDEX lazuli_sessions_day ON lazuli_sessions (created_day)`,
		`CREATE INDEX lazuli_sessions_order ON lazuli_sessions (repository, worktree, last_event_id)`,
		`CREATE TABLE lazuli_events (
			store_id   text NOT NULL,
			event_id   bigint NOT NULL,
			session_id bigint NOT NULL,
			session_created text NOT NULL,
			seq        bigint NOT NULL,
			kind       text NOT NULL,
			char_len   bigint NOT NULL,
			data       jsonb,
			text       text NOT NULL DEFAULT '',
			payload    bytea NOT NULL,
			src_hash   bytea NOT NULL,
			redactions integer NOT NULL DEFAULT 0,
			PRIMARY KEY (store_id, event_id)
		)`,
		`CREATE INDEX lazuli_events_session ON lazuli_events (store_id, session_id, session_created, seq)`,
		`CREATE INDEX lazuli_events_text ON lazuli_events USING gin (text gin_trgm_ops)`,
		`CREATE INDEX lazuli_events_newest ON lazuli_events (session_created DESC, event_id DESC)`,
		// The payload is a zstd frame already: stored out of line, not compressed again.
		`ALTER TABLE lazuli_events ALTER COLUMN payload SET STORAGE EXTERNAL`,
		`CREATE TABLE lazuli_compactions (
			store_id   text NOT NULL,
			compaction_id bigint NOT NULL,
			session_id bigint NOT NULL,
			session_created text NOT NULL,
			after_seq  bigint NOT NULL,
			summary    text NOT NULL,
			created    text NOT NULL,
			redactions integer NOT NULL DEFAULT 0,
			PRIMARY KEY (store_id, compaction_id)
		)`,
		`CREATE INDEX lazuli_compactions_session ON lazuli_compactions (store_id, session_id, session_created)`,
		`CREATE TABLE lazuli_files (
			store_id   text NOT NULL,
			session_id bigint NOT NULL,
			session_created text NOT NULL,
			path       text NOT NULL,
			action     text NOT NULL,
			count      bigint NOT NULL,
			first_seq  bigint NOT NULL,
			last_seq   bigint NOT NULL,
			PRIMARY KEY (store_id, session_id, session_created, path, action)
		)`,
		`CREATE TABLE lazuli_refs (
			store_id   text NOT NULL,
			session_id bigint NOT NULL,
			session_created text NOT NULL,
			kind       text NOT NULL,
			value      text NOT NULL,
			first_seq  bigint NOT NULL,
			PRIMARY KEY (store_id, session_id, session_created, kind, value)
		)`,
	}},
	{stmts: []string{ // 2: word chunks for search, pushed ranges, usage by turn
		// Search finds chunks of a session's events by the words they hold
		// (a trigram index on a chunk's distinct words costs a tenth of one
		// on every event's text), then checks their events' texts.
		`CREATE TABLE lazuli_event_chunks (
			store_id   text NOT NULL,
			session_id bigint NOT NULL,
			session_created text NOT NULL,
			first_event bigint NOT NULL,
			last_event bigint NOT NULL,
			words      text NOT NULL
		)`,
		// The event ids each committed batch covered, (after_id, upto_id]:
		// batches commit in any order, and a push resumes from the end of
		// the covered prefix, skipping the ranges above it.
		`CREATE TABLE lazuli_pushed (
			store_id   text NOT NULL,
			after_id   bigint NOT NULL,
			upto_id    bigint NOT NULL
		)`,
		`CREATE INDEX lazuli_pushed_store ON lazuli_pushed (store_id, after_id)`,
		`INSERT INTO lazuli_pushed SELECT store_id, 0, max(event_id) FROM lazuli_events GROUP BY store_id`,
		`CREATE TABLE lazuli_usage (
			store_id   text NOT NULL,
			session_id bigint NOT NULL,
			session_created text NOT NULL,
			turn       bigint NOT NULL,
			day        date,
			model      text NOT NULL,
			backend    text NOT NULL,
			input_tokens bigint NOT NULL, output_tokens bigint NOT NULL, cache_read_tokens bigint NOT NULL,
			cache_write_tokens bigint NOT NULL, reasoning_tokens bigint NOT NULL,
			cost_usd   double precision NOT NULL,
			cost_estimated boolean NOT NULL
		)`,
		`CREATE INDEX lazuli_usage_session ON lazuli_usage (store_id, session_id, session_created)`,
		`CREATE INDEX lazuli_usage_day ON lazuli_usage (day)`,
	}, fn: backfillChunks},
}

// afterBackfill are the statements of migration 2 that follow its Go part:
// the indexes of the filled chunk table, and the per-event indexes search
// no longer uses.
var afterBackfill = []string{
	`CREATE INDEX lazuli_event_chunks_words ON lazuli_event_chunks USING gin (words gin_trgm_ops)`,
	`CREATE INDEX lazuli_event_chunks_newest ON lazuli_event_chunks (session_created DESC, last_event DESC)`,
	`DROP INDEX lazuli_events_text`,
	`DROP INDEX lazuli_events_newest`,
}

// SchemaError reports a database whose schema this Lazuli cannot use.
type SchemaError struct {
	Have, Want int
}

func (e *SchemaError) Error() string {
	switch {
	case e.Have == 0:
		return "the team database has no Lazuli schema yet: run lazuli sync push once to create it"
	case e.Have > e.Want:
		return fmt.Sprintf("the team database has schema version %d, newer than this Lazuli's %d: upgrade Lazuli", e.Have, e.Want)
	}
	return fmt.Sprintf("the team database has schema version %d, older than this Lazuli's %d: run lazuli sync push to migrate it", e.Have, e.Want)
}

// Version reads the database's schema version; 0 when it has none.
func (db *DB) Version(ctx context.Context) (int, error) {
	var exists bool
	if err := db.conn.QueryRow(ctx, `SELECT to_regclass('lazuli_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, db.wrap("read the schema version", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := db.conn.QueryRow(ctx, `SELECT version FROM lazuli_schema`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return v, db.wrap("read the schema version", err)
}

// CheckSchema returns a *SchemaError unless the database has this
// Lazuli's schema version: for readers, which never migrate.
func (db *DB) CheckSchema(ctx context.Context) error {
	v, err := db.Version(ctx)
	if err != nil {
		return err
	}
	if v != SchemaVersion {
		return &SchemaError{Have: v, Want: SchemaVersion}
	}
	return nil
}

// Migrate creates the schema or brings it forward to SchemaVersion, each
// step in a transaction of its own under an advisory lock, so concurrent
// pushers migrate once. A newer schema is a *SchemaError.
func (db *DB) Migrate(ctx context.Context) error {
	for {
		v, err := db.Version(ctx)
		if err != nil {
			return err
		}
		if v == SchemaVersion {
			return nil
		}
		if v > SchemaVersion {
			return &SchemaError{Have: v, Want: SchemaVersion}
		}
		if err := db.migrateStep(ctx); err != nil {
			return err
		}
	}
}

// migrateStep applies the next migration, if another migrator has not.
func (db *DB) migrateStep(ctx context.Context) error {
	tx, err := db.conn.Begin(ctx)
	if err != nil {
		return db.wrap("migrate the team schema", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
		return db.wrap("migrate the team schema", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS lazuli_schema (version integer NOT NULL)`); err != nil {
		return db.wrap("migrate the team schema", err)
	}
	var v int
	err = tx.QueryRow(ctx, `SELECT version FROM lazuli_schema`).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := tx.Exec(ctx, `INSERT INTO lazuli_schema(version) VALUES (0)`); err != nil {
			return db.wrap("migrate the team schema", err)
		}
	case err != nil:
		return db.wrap("migrate the team schema", err)
	}
	if v >= SchemaVersion {
		return tx.Commit(ctx) // another pusher migrated meanwhile
	}
	m := migrations[v]
	for _, stmt := range m.stmts {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return db.wrap(fmt.Sprintf("migrate the team schema to version %d", v+1), err)
		}
	}
	if m.fn != nil {
		if err := m.fn(ctx, tx); err != nil {
			return db.wrap(fmt.Sprintf("migrate the team schema to version %d", v+1), err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE lazuli_schema SET version = $1`, v+1); err != nil {
		return db.wrap("migrate the team schema", err)
	}
	return db.wrap("migrate the team schema", tx.Commit(ctx))
}
