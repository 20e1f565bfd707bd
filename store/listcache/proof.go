package listcache

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
)

// FileID is what the file system says about a store file. Together with
// the header's Stamp it tells an unchanged file from one that was
// written, or replaced by a copy of another store (which may have the same
// change counter, page count, sessions and last row).
type FileID struct {
	Dev, Ino    uint64
	Size, MTime int64 // MTime in nanoseconds
}

// Stamp is what the header says about the file's version: SQLite's
// file change counter and the size in pages. In rollback-journal mode,
// AZUREAL's and Lazuli's, every write transaction increments the counter,
// so an equal stamp means an unchanged file. Trusted is false when the
// counter need not change (WAL mode) or the size field is stale.
type Stamp struct {
	Counter, Pages uint32
	Trusted        bool
}

// StampOf returns the Stamp of a database header
// (https://sqlite.org/fileformat.html#the_database_header).
func StampOf(h *[100]byte) Stamp {
	be := binary.BigEndian
	st := Stamp{Counter: be.Uint32(h[24:]), Pages: be.Uint32(h[28:])}
	st.Trusted = h[18] == 1 && h[19] == 1 && st.Pages > 0 && st.Counter == be.Uint32(h[92:])
	return st
}

// Same reports whether two stamps prove the file unchanged.
func (st Stamp) Same(o Stamp) bool {
	return st.Trusted && o.Trusted && st == o
}

// The rows a contentProof samples: spread evenly over the ids counted, and
// the last ones, where two copies of one store that went separate ways
// differ first.
const (
	proofSpread = 16
	proofLast   = 8
)

// contentProof is a hash of sampled events rows with id <= lastID, all of
// their columns including the payload bytes. The rows a count folded in
// never change (AZUREAL only appends, and deletes whole sessions), so the
// proof of counts stays the same while they are right; the same proof
// from a different file would need the same bytes in every sampled row.
// It costs a few index lookups, whatever the size of the file.
type contentProof [16]byte

// proveContent returns the contentProof of the rows up to lastID, in q's
// transaction.
func proveContent(ctx context.Context, q Querier, lastID int64) (contentProof, error) {
	h := sha256.New()
	var num [8]byte
	add := func(query string, args ...any) error {
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var cols [6][]byte // any storage class scans as bytes; NULL as nil
			if err := rows.Scan(&cols[0], &cols[1], &cols[2], &cols[3], &cols[4], &cols[5]); err != nil {
				return err
			}
			for _, c := range cols {
				binary.LittleEndian.PutUint64(num[:], uint64(len(c)))
				h.Write(num[:])
				h.Write(c)
			}
		}
		return rows.Err()
	}
	const cols = "SELECT id, session_id, seq, kind, char_len, data FROM events "
	if lastID > 0 {
		for i := range int64(proofSpread) {
			from := 1 + (lastID-1)*i/(proofSpread-1)
			if err := add(cols+"WHERE id >= ? AND id <= ? ORDER BY id LIMIT 1", from, lastID); err != nil {
				return contentProof{}, err
			}
		}
		if err := add(cols+"WHERE id <= ? ORDER BY id DESC LIMIT ?", lastID, proofLast); err != nil {
			return contentProof{}, err
		}
	}
	var p contentProof
	copy(p[:], h.Sum(nil))
	return p, nil
}
