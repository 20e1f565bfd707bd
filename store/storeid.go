package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// StoreIDKey is the meta key under which Lazuli keeps a store's identity
// for team sync. AZUREAL reads and writes only meta's schema_version row,
// so the row travels with the file and is left alone by AZUREAL (see
// docs/compatibility.md). It is written only when the user pushes the store.
const StoreIDKey = "lazuli_store_id"

// StoreID returns the store's team-sync identity, or "" when the store has
// none (it was never pushed) or has no file or meta table.
func (s *Store) StoreID(ctx context.Context) (string, error) {
	db, info, err := s.reader(ctx)
	if err != nil || db == nil || !info.hasTable("meta") {
		return "", wrapStoreID(err)
	}
	var v sql.NullString
	err = db.QueryRowContext(ctx, "SELECT CAST(value AS TEXT) FROM meta WHERE key = ?", StoreIDKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", wrapStoreID(formatOrErr(s.path, err))
	}
	return v.String, nil
}

// SetStoreID writes id as the store's team-sync identity, replacing any
// other. The store must exist: a missing file is ErrNotFound, never created.
func (s *Store) SetStoreID(ctx context.Context, id string) error {
	if id == "" {
		return fmt.Errorf("set store id of %s: empty id", s.path)
	}
	err := s.writeTx(ctx, false, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", StoreIDKey, id)
		return err
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("set store id of %s: %w", s.path, err)
	}
	return nil
}

// EnsureStoreID gives the store the team-sync identity id unless it has
// one, and returns the identity it has then: two pushes that start at once
// on a store without one agree on the first that was written.
func (s *Store) EnsureStoreID(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("set store id of %s: empty id", s.path)
	}
	var have string
	err := s.writeTx(ctx, false, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", StoreIDKey, id); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, "SELECT CAST(value AS TEXT) FROM meta WHERE key = ?", StoreIDKey).Scan(&have)
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("set store id of %s: %w", s.path, err)
	}
	return have, nil
}

func wrapStoreID(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read store id: %w", err)
}
