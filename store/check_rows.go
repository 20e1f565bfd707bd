package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store/listcache"
)

// classRule is a storage-class rule for one column (spec §1.5).
type classRule struct {
	table, column string
	allowed       string // SQL list of typeof() values
}

// classRules are the storage classes AZUREAL's typed getters require; a
// value of another class makes AZUREAL's whole query fail.
var classRules = []classRule{
	{"sessions", "name", "'text'"},
	{"sessions", "worktree", "'text'"},
	{"sessions", "created", "'text'"},
	{"sessions", "last_claude_uuid", "'text'"},
	{"sessions", "completed", "'integer','null'"},
	{"sessions", "duration_ms", "'integer','null'"},
	{"sessions", "cost_usd", "'real','integer','null'"},
	{"events", "session_id", "'integer'"},
	{"events", "seq", "'integer'"},
	{"events", "kind", "'text'"},
	{"events", "char_len", "'integer'"},
	{"compactions", "session_id", "'integer'"},
	{"compactions", "after_seq", "'integer'"},
	{"compactions", "summary", "'text'"},
	{"compactions", "created", "'text'"},
	{"meta", "value", "'text'"},
}

// checkRows checks storage classes, every event row and the compactions.
func checkRows(ctx context.Context, q querier, cd *codec.Codec, r *Report, fs *findings) error {
	info, err := readSchema(ctx, q)
	if err != nil {
		return err
	}
	if err := checkClasses(ctx, q, info, fs); err != nil {
		return err
	}
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sessions").Scan(&r.Sessions); err != nil {
		return err
	}
	if err := checkFullText(ctx, q, r, fs); err != nil { // Lazuli's full text (fulltext.go)
		return err
	}
	if err := checkUsage(ctx, q, fs); err != nil { // Lazuli's usage table (usage.go)
		return err
	}
	if err := checkNative(ctx, q, fs); err != nil { // Lazuli's native-import record (native.go)
		return err
	}
	if err := checkForks(ctx, q, fs); err != nil { // Lazuli's fork links (fork.go)
		return err
	}
	if err := checkFlags(ctx, q, fs); err != nil { // Lazuli's pins and archive marks (flags.go)
		return err
	}
	if err := checkPermissions(ctx, q, fs); err != nil { // Lazuli's permission modes and rules (permissions.go)
		return err
	}
	if err := checkSubagents(ctx, q, fs); err != nil { // Lazuli's sub-agent links (subagents.go)
		return err
	}
	if err := checkRunFailures(ctx, q, fs); err != nil { // Lazuli's run failure reasons (runfailures.go)
		return err
	}
	lastSeq, err := checkEvents(ctx, q, cd, r, fs)
	if err != nil || !info.hasTable("compactions") {
		return err
	}
	return checkCompactions(ctx, q, lastSeq, r, fs)
}

// checkClasses counts values of the wrong storage class, column by column.
func checkClasses(ctx context.Context, q querier, info *schemaInfo, fs *findings) error {
	for _, c := range classRules {
		if !info.hasColumn(c.table, c.column) {
			continue
		}
		var n int
		query := fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE typeof(%s) NOT IN (%s)", c.table, c.column, c.allowed)
		if err := q.QueryRowContext(ctx, query).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fs.addN(SeverityError, "storage_class", n,
				fmt.Sprintf("%s.%s holds values that are not %s: AZUREAL cannot read the table", c.table, c.column, c.allowed))
		}
	}
	return nil
}

// eventScan is the state of checkEvents for the current session.
type eventScan struct {
	session, prevSeq int64
	started          bool
	chars            int64 // its char_len values added up
	overflow         bool  // they do not add up (see listcache.CharSum)
}

// checkEvents reads every event row in session and seq order and returns
// each session's last seq.
func checkEvents(ctx context.Context, q querier, cd *codec.Codec, r *Report, fs *findings) (map[int64]int64, error) {
	// A seq or session_id that is not an integer (checkClasses counts them)
	// comes as NULL: the row is reported, and the others are checked.
	rows, err := q.QueryContext(ctx, `SELECT CASE typeof(e.session_id) WHEN 'integer' THEN e.session_id END,
		CASE typeof(e.seq) WHEN 'integer' THEN e.seq END, CAST(e.kind AS TEXT), COALESCE(CAST(e.char_len AS INTEGER), 0),
		typeof(e.data), CAST(e.data AS BLOB), s.id IS NULL FROM events e LEFT JOIN sessions s ON s.id = e.session_id
		ORDER BY e.session_id, e.seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	lastSeq := map[int64]int64{}
	var st eventScan
	for rows.Next() {
		var (
			sessionV, seqV sql.NullInt64
			charLen        int64
			kind, class    string
			data           []byte
			orphan         bool
		)
		if err := rows.Scan(&sessionV, &seqV, &kind, &charLen, &class, &data, &orphan); err != nil {
			return nil, err
		}
		r.Events++
		session, seq := sessionV.Int64, seqV.Int64
		if !sessionV.Valid {
			fs.add(SeverityError, "session_id_not_integer", 0, 0, "an event's session_id is not an integer: it belongs to no session")
			continue
		}
		if !seqV.Valid {
			fs.add(SeverityError, "seq_not_integer", session, 0,
				"an event's seq is not an integer: AZUREAL cannot load this session, Lazuli marks it damaged")
			continue
		}
		lastSeq[session] = seq
		st.checkSeq(fs, session, seq)
		st.addChars(fs, session, seq, charLen)
		if orphan {
			fs.add(SeverityError, "orphan_events", session, seq, "events of a session that does not exist: they would attach to the next session that reuses the id")
		}
		checkPayload(fs, cd, session, seq, codec.Kind(kind), charLen, class, data)
	}
	return lastSeq, rows.Err()
}

// addChars adds a row's char_len to its session's total and reports,
// once per session, a total too large to be true: AZUREAL's SUM fails on
// it, and Lazuli cannot tell the session's context size.
func (st *eventScan) addChars(fs *findings, session, seq, charLen int64) {
	if st.overflow { // checkSeq resets it for each session
		return
	}
	if st.chars, st.overflow = listcache.CharSum(float64(st.chars) + float64(charLen)); st.overflow {
		fs.add(SeverityError, "char_len_overflow", session, seq,
			"char_len values too large to add up: AZUREAL's context size query fails, Lazuli marks the session damaged")
	}
}

// checkSeq reports duplicate seqs and gaps (seqs start at 1 and grow by 1).
func (st *eventScan) checkSeq(fs *findings, session, seq int64) {
	if !st.started || session != st.session {
		st.session, st.prevSeq, st.started, st.chars, st.overflow = session, 0, true, 0, false
	}
	switch {
	case seq == st.prevSeq:
		fs.add(SeverityError, "seq_duplicate", session, seq, "two events have the same seq")
	case seq != st.prevSeq+1:
		fs.add(SeverityWarning, "seq_gap", session, seq, "seqs are not contiguous from 1 (readers rely only on their order)")
	}
	st.prevSeq = seq
}

// checkPayload checks one row's data against its kind and char_len.
func checkPayload(fs *findings, cd *codec.Codec, session, seq int64, kind codec.Kind, charLen int64, class string, data []byte) {
	switch {
	case class != "blob":
		fs.add(SeverityError, "data_not_blob", session, seq, "payload stored as "+class+", not BLOB: AZUREAL cannot load this session at all")
	case !bytes.HasPrefix(data, codec.ZstdMagic):
		fs.add(SeverityError, "data_not_zstd", session, seq, "payload is not a zstd frame: AZUREAL skips the row")
	}
	js, err := cd.Payload(data)
	if err != nil || !utf8.Valid(js) {
		fs.add(SeverityError, "undecodable", session, seq, "payload cannot be decompressed: the event is lost")
		return
	}
	ev, err := codec.DecodeEventJSON(js)
	if err != nil {
		fs.add(SeverityError, "undecodable", session, seq, "payload is not a valid event: the event is lost")
		return
	}
	if ev.Kind != kind {
		fs.add(SeverityError, "kind_mismatch", session, seq,
			"kind column differs from the stored event: message counts and compaction boundaries go wrong")
	}
	if codec.CharLen(ev) != charLen {
		fs.add(SeverityWarning, "char_len_mismatch", session, seq,
			"char_len differs from the event's size: only the context meter and compaction threshold are affected")
	}
}

// checkCompactions reports orphaned compactions and boundaries past the
// last event of their session.
func checkCompactions(ctx context.Context, q querier, lastSeq map[int64]int64, r *Report, fs *findings) error {
	rows, err := q.QueryContext(ctx, `SELECT c.id, c.session_id, COALESCE(CAST(c.after_seq AS INTEGER), 0), s.id IS NULL
		FROM compactions c LEFT JOIN sessions s ON s.id = c.session_id ORDER BY c.id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id, session, after int64
			orphan             bool
		)
		if err := rows.Scan(&id, &session, &after, &orphan); err != nil {
			return err
		}
		r.Compactions++
		switch {
		case orphan:
			fs.add(SeverityError, "orphan_compactions", session, 0, "compactions of a session that does not exist: they would attach to the next session that reuses the id")
		case after > lastSeq[session]:
			fs.add(SeverityWarning, "compaction_past_end", session, 0,
				fmt.Sprintf("compaction %d covers up to seq %d, past the session's last event %d", id, after, lastSeq[session]))
		}
	}
	return rows.Err()
}
