// Package store keeps a worktree's agent sessions in one SQLite file in
// AZUREAL's exact v3 ".azs" format: the tables sessions, events, compactions
// and meta, each event a zstd-compressed, serde-shaped JSON blob that was
// compacted at ingestion.
//
// The package owns everything about the file: schema and migration, the
// read-time context filter (filter.go), and the queries the rest of Lazuli
// needs. The events themselves, their exact JSON, their zstd frames,
// ingestion-time compaction and the context prompt are package codec's,
// which has no SQL. It never imports Fyne.
//
// A *Store is safe for concurrent use by multiple goroutines. Opening a store
// never creates or modifies the file: the schema and AZUREAL's migration are
// applied only right before the first write, and a file that fails
// validation is never written to: Open checks the header and the schema,
// and SQLite's quick_check, which reads the whole file, runs before the
// first write.
package store
