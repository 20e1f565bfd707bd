package store

import (
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors. Callers branch on them with errors.Is; the returned
// errors wrap them with context.
var (
	// ErrNotFound reports a session that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrReadOnly reports a write to a store that does not accept writes:
	// one opened with OpenReadOnly, a file with a newer schema, a legacy v1
	// file, or a file the operating system does not let us write.
	ErrReadOnly = errors.New("store is read-only")
	// ErrBusy reports that another connection held the store's lock for
	// longer than the busy timeout.
	ErrBusy = errors.New("store is busy")
	// ErrDamaged reports a session whose rows cannot be read as AZUREAL's
	// format says (a seq that is not an integer, char_len values too large
	// to add up). Only that session is affected; Session.Damage and lazuli
	// check say more.
	ErrDamaged = errors.New("session is damaged")
)

// errClosed reports a call on a closed Store.
var errClosed = errors.New("store is closed")

// FormatError reports a file that is not a usable AZUREAL session store:
// not SQLite, damaged, missing tables or columns, or (for writes) a schema
// Lazuli must not write to. Reason is a human sentence without the path.
type FormatError struct {
	Path   string
	Reason string
}

// Error returns a message for the user, such as
// "/w/.azureal/sessions.azs: the file is not an SQLite database".
func (e *FormatError) Error() string {
	return e.Path + ": " + e.Reason
}

// sqliteCode returns the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// classify makes SQLite's lock and read-only errors recognisable: it wraps
// them with ErrBusy or ErrReadOnly and leaves every other error unchanged.
func classify(err error) error {
	if err == nil || errors.Is(err, ErrBusy) || errors.Is(err, ErrReadOnly) {
		return err
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w (another program holds its lock): %w", ErrBusy, err)
	case sqlite3.SQLITE_READONLY:
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return err
}
