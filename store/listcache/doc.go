// Package listcache keeps the per-session counts a store's session list
// reports (events, messages, characters since the latest compaction, the
// last event id) between lists and between runs, so that listing a store
// of any size costs about a millisecond per thousand sessions instead of
// a read of its whole events table.
//
// A Cache belongs to one store file. Its owner (the store package) passes
// it a Querier inside its own read or write transaction; the cache reads
// the file only through it, never opens the file, and imports none of
// Lazuli's packages. The counts are kept up to date incrementally, on
// what AZUREAL's format guarantees: events get increasing AUTOINCREMENT
// ids and are never changed or deleted one by one, only with their
// session. They are saved in a cache file of their own (see disk.go) and
// adopted by a later run only when the store file still holds the rows
// they were counted from (see contentProof).
//
// Concurrency: a Cache is safe for concurrent use; Snapshot, Cached and
// Deleting (between Lock and Unlock) serialise on its mutex. Cache file
// writes run in the background, one at a time; Close waits for them.
package listcache
