// Package teamsync shares sessions through a PostgreSQL database: push a
// store's sessions, events and compactions (incrementally, idempotently,
// after the export secret scan), list, show, search and total a team's
// sessions, and pull one into a local store. It is the only package that
// talks to the database, through jackc/pgx v5. It never imports Fyne.
//
// Rows are keyed by a store id Lazuli keeps in the store's meta table
// (store.StoreIDKey), so a store keeps its identity when its file moves; a
// session is (store id, session id, created), which survives id reuse; an
// event is (store id, event id): SQLite never reuses an events id.
package teamsync
