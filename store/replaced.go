package store

import "database/sql"

// A store file can be replaced under an open Store: a user restores a
// backup, or copies a store from another machine over the path (cp writes
// into the same inode). SQLite notices only when the header's change
// counter differs; two stores with the same counter (small ones often
// have) make it keep the old file's cached pages and schema, and read
// pages of the new file as if they were the old one's. The Store therefore
// looks at the file (see fileID) before each read: when it changed in a
// way this Store did not make, the idle connections, and their caches, are
// closed, and the next read starts afresh. The counts ListSessions keeps
// prove their rows on their own (see contentProof).

// followFile closes the idle connections when the file changed since the
// Store last looked. s.mu must be held.
func (s *Store) followFile() {
	id, ok := fileIDOf(s.path)
	if !ok || (s.seenOK && id == s.seen) {
		return
	}
	if s.seenOK {
		for _, db := range [...]*sql.DB{s.db, s.aux} {
			if db != nil {
				db.SetMaxIdleConns(0) // closes the idle connections
				db.SetMaxIdleConns(maxOpenConns)
			}
		}
	}
	s.seen, s.seenOK = id, true
}

// wrote records the file as this Store's own write left it, so that the
// next read keeps its connections. Called right after a commit, with
// writeMu held.
func (s *Store) wrote() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen, s.seenOK = fileIDOf(s.path)
}
