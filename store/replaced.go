package store

// A store file can be replaced under an open Store: a user restores a
// backup, or copies a store from another machine over the path (cp writes
// into the same inode). SQLite notices only when the header's change
// counter differs; two stores with the same counter (small ones often
// have) make it keep the old file's cached pages and schema, and read
// pages of the new file as if they were the old one's. The Store therefore
// looks at the file (see fileID) before each read: when it changed in a
// way this Store did not make, the idle connections, and their caches, are
// closed, and the next read starts afresh. The counts Sessions().List keeps
// prove their rows on their own (see listcache's contentProof).

// followFile closes the idle connections of the read and write pools when
// the file changed since the Store last looked: before every read (reader)
// and every write (writer), so that no write goes into a replaced file
// through another file's cached pages. f.mu must be held.
func (f *file) followFile() {
	id, ok := fileIDOf(f.path)
	if !ok || (f.seenOK && id == f.seen) {
		return
	}
	if f.seenOK {
		f.dropIdle()
		if f.wdb != nil {
			f.wdb.SetMaxIdleConns(0) // closes its connection when idle
			f.wdb.SetMaxIdleConns(1)
		}
	}
	f.seen, f.seenOK = id, true
}

// wrote records the file as this Store's own write left it, so that the
// next read keeps its connections. Called right after a commit, with
// writeMu held.
func (f *file) wrote() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen, f.seenOK = fileIDOf(f.path)
}
