package insight

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// MaxSQLValue is the largest string or blob a RunSQL query may make, in
// bytes (SQLite's SQLITE_LIMIT_LENGTH on its connection): room for the
// largest event payload Lazuli stores (store.MaxEventSize) decoded by the
// events view, and no more, so that one call of zeroblob, randomblob,
// printf or hex cannot allocate gigabytes before the budget is checked.
const MaxSQLValue = codec.MaxEventSize + 1<<20

// MaxSQLResult is the most text and blob bytes a RunSQL answer holds; a
// query whose rows add up to more stops with an error.
const MaxSQLResult = codec.MaxEventSize + 1<<20

// sqlLimits are the SQLite limits of RunSQL's connection: values up to
// MaxSQLValue, and a query's shape within what the documented views need
// (which also bounds how many large values one row holds). No sorter
// threads.
var sqlLimits = []struct{ id, value int }{
	{sqlite3.SQLITE_LIMIT_LENGTH, MaxSQLValue},
	{sqlite3.SQLITE_LIMIT_COLUMN, 64},
	{sqlite3.SQLITE_LIMIT_FUNCTION_ARG, 32},
	{sqlite3.SQLITE_LIMIT_WORKER_THREADS, 0},
}

// ErrRefused reports a statement the read-only SQL surface does not allow.
var ErrRefused = errors.New("refused: lazuli sql is read-only")

// ErrSQLTooLarge reports a RunSQL query stopped for what it would
// allocate: a value over MaxSQLValue, an answer over MaxSQLResult, or more
// memory than WithMemoryLimit allows.
var ErrSQLTooLarge = errors.New("query stopped")

// SQLSource is one store and its insight index, for RunSQL.
type SQLSource struct {
	Store string // the store's path
	Index string // its insight index's path
	// File is the file to read the store's events from when it is not
	// Store: the copy the store's own reads go to while its last write is
	// interrupted or it is in WAL mode (see SQLSourceOf).
	File string
}

// SQLSourceOf returns the SQLSource of x, which reads its store where the
// store's own reads go (store.Store.ReadPath): a store with a hot journal
// or in WAL mode is read through a copy, so that the query changes no file
// beside it and reads what was committed. The copy lasts while x's store
// is open.
func SQLSourceOf(ctx context.Context, x *Index) (SQLSource, error) {
	file, err := x.Store().ReadPath(ctx)
	if err != nil {
		return SQLSource{}, err
	}
	return SQLSource{Store: x.Store().Path(), Index: x.Path(), File: file}, nil
}

// SQLResult is a query's answer: the JSON shape of `lazuli sql --json`.
type SQLResult struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated"` // more rows than the limit
}

// Cells returns the rows as text: NULL for a null, numbers and text as
// they print.
func (r SQLResult) Cells() [][]string {
	out := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		cells := make([]string, len(row))
		for j, v := range row {
			if v == nil {
				cells[j] = "NULL"
			} else {
				cells[j] = fmt.Sprint(v)
			}
		}
		out[i] = cells
	}
	return out
}

// Views documents the views RunSQL offers, for the README and the SQL
// console's schema pane. Every view has a store column (the store's path).
var Views = []struct{ Name, Columns string }{
	{"sessions", "store, id, created, worktree, name, day, events, turns"},
	{"turns", "store, session, turn, first_seq, last_seq, first_event, prompt, tool_calls, tool_errors, success, duration_ms"},
	{"usage", "store, session, turn, after_seq, day, at, source, model, backend, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, cost_estimated"},
	{"files", "store, session, path, action, count, first_seq, last_seq, first_event, last_event"},
	{"refs", "store, session, kind, value, url, first_seq, first_event"},
	{"tools", "store, session, name, calls, errors"},
	{"events", "store, id, session_id, seq, kind, json (the decoded payload: json_extract works on it), char_len"},
}

// Examples are example queries for the SQL console and the README.
var Examples = []struct{ Title, Query string }{
	{"Cost per day", "SELECT day, ROUND(SUM(cost_usd), 4) AS cost, SUM(input_tokens + output_tokens) AS tokens FROM usage GROUP BY day ORDER BY day DESC"},
	{"Most edited files", "SELECT path, SUM(count) AS edits FROM files WHERE action != 'read' GROUP BY path ORDER BY edits DESC LIMIT 20"},
	{"Tools by error rate", "SELECT name, SUM(calls) AS calls, SUM(errors) AS errors, ROUND(100.0 * SUM(errors) / SUM(calls), 1) AS pct FROM tools GROUP BY name ORDER BY calls DESC"},
	{"Pull requests touched", "SELECT value, url, 'S' || session AS session FROM refs WHERE kind = 'pr'"},
	{"Bash commands of a session", "SELECT seq, json_extract(json, '$.ToolCall.input.command') FROM events WHERE session_id = 1 AND kind = 'ToolCall'"},
}

// decodeHook, when set (by tests), runs at each call of decode().
var decodeHook atomic.Pointer[func()]

// decodeFunc is the decode() SQL function: a stored payload (zstd frame or
// plain JSON) to its JSON text; NULL when it cannot be decoded.
func decodeFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	if hook := decodeHook.Load(); hook != nil {
		(*hook)()
	}
	var data []byte
	switch v := args[0].(type) {
	case []byte:
		data = v
	case string:
		data = []byte(v)
	default:
		return nil, nil
	}
	js, err := codec.PayloadJSON(data)
	if err != nil || !utf8.Valid(js) {
		return nil, nil
	}
	return string(js), nil
}

// connector opens connections of one RunSQL with its own driver, so that
// the authorizer belongs to that query alone.
type connector struct {
	d   *sqlite.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.d }

// roURI is the read-only URI of a database file for ATTACH.
func roURI(path string) string {
	return store.FileURI(path, url.Values{"mode": {"ro"}})
}

// RunSQL runs one query, read-only, over the sources: each store (its File,
// when set: see SQLSourceOf) and index is attached read-only (mode=ro) to
// an in-memory database that holds the documented views, then an
// authorizer that allows only SELECT, reads, functions and recursive
// queries is switched on for the user's statement:
// writes, ATTACH, CREATE (temp included), PRAGMA, VACUUM and the like are
// refused with ErrRefused. At most limit rows are returned (Truncated says
// there were more), and the query is interrupted after budget. A value
// larger than MaxSQLValue or an answer larger than MaxSQLResult stops the
// query with ErrSQLTooLarge.
//
// RunSQL returns by twice the budget whatever the query does: SQLite looks
// at an interruption only between steps of its program, and one step (a
// function call on a large value, several in one row) can outlast the
// budget; such a query is left to end on its own, interrupted, on its own
// connection.
func RunSQL(ctx context.Context, sources []SQLSource, query string, limit int, budget time.Duration, opts ...SQLOption) (SQLResult, error) {
	if strings.TrimSpace(query) == "" {
		return SQLResult{}, errors.New("empty query")
	}
	if len(sources) == 0 {
		return SQLResult{}, errors.New("no store to query")
	}
	var o sqlOptions
	for _, opt := range opts {
		opt(&o)
	}
	type answer struct {
		res SQLResult
		err error
	}
	qctx, cancel := context.WithCancel(ctx)
	defer cancel() // interrupts a query left running
	done := make(chan answer, 1)
	go func() {
		res, err := runSQL(qctx, sources, query, limit, budget)
		done <- answer{res, err}
	}()
	wait := time.NewTimer(2 * budget)
	defer wait.Stop()
	var watch <-chan time.Time // nil: memory is not watched
	base := residentBytes()
	if o.memory > 0 && base > 0 {
		tick := time.NewTicker(memoryPoll)
		defer tick.Stop()
		watch = tick.C
	}
	for {
		select {
		case a := <-done:
			return a.res, a.err
		case <-wait.C:
			return SQLResult{}, fmt.Errorf("query interrupted after %s", budget)
		case <-ctx.Done():
			return SQLResult{}, ctx.Err()
		case <-watch:
			if residentBytes()-base > o.memory {
				return SQLResult{}, fmt.Errorf("%w: it needs more than %s of memory", ErrSQLTooLarge, megabytes(o.memory))
			}
		}
	}
}

// SQLOption changes how RunSQL runs a query.
type SQLOption func(*sqlOptions)

type sqlOptions struct {
	memory int64 // see WithMemoryLimit; 0 for none
}

// WithMemoryLimit has RunSQL stop a query that adds more than n bytes to
// the process's resident memory (read where the system says it: Linux),
// returning ErrSQLTooLarge and leaving the query interrupted. SQLite's own
// heap limit is not available (modernc's build keeps no memory
// statistics), and SQLITE_LIMIT_LENGTH bounds one value, not a row of
// several. The whole process's memory counts, so only a process that runs
// the query alone should set it (`lazuli sql`), not the window.
func WithMemoryLimit(n int64) SQLOption {
	return func(o *sqlOptions) { o.memory = n }
}

// memoryPoll is how often RunSQL looks at the process's memory.
const memoryPoll = 10 * time.Millisecond

// runSQL is RunSQL's work, on a goroutine of its own.
func runSQL(ctx context.Context, sources []SQLSource, query string, limit int, budget time.Duration) (SQLResult, error) {
	var locked atomic.Bool
	var denied atomic.Value // the first refused action
	d := &sqlite.Driver{}
	if err := d.RegisterDeterministicScalarFunction("decode", 1, decodeFunc); err != nil {
		return SQLResult{}, err
	}
	d.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		ar, ok := c.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("the SQLite driver has no authorizer")
		}
		return ar.RegisterAuthorizer(func(a sqlite.AuthorizerActionCode, a1, a2, db, _ string) sqlite.AuthorizerReturnCode {
			if !locked.Load() {
				return sqlite.AuthorizerOK
			}
			switch a {
			case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthFunction, sqlite.AuthRecursive:
				return sqlite.AuthorizerOK
			}
			denied.CompareAndSwap(nil, fmt.Sprintf("%s %s", actionName(a), strings.TrimSpace(a1+" "+a2)))
			return sqlite.AuthorizerDeny
		})
	})
	q := url.Values{"mode": {"memory"}}
	db := sql.OpenDB(connector{d, (&url.URL{Scheme: "file", Opaque: "lazuli-sql", RawQuery: q.Encode()}).String()})
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return SQLResult{}, fmt.Errorf("open sql: %w", err)
	}
	defer conn.Close()
	if err := setupViews(ctx, conn, sources); err != nil {
		return SQLResult{}, err
	}
	for _, l := range sqlLimits {
		if _, err := sqlite.Limit(conn, l.id, l.value); err != nil {
			return SQLResult{}, fmt.Errorf("limit sql: %w", err)
		}
	}
	locked.Store(true)
	qctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	res, err := runQuery(qctx, conn, query, limit)
	if err != nil {
		if d, ok := denied.Load().(string); ok {
			return SQLResult{}, fmt.Errorf("%w (%s)", ErrRefused, d)
		}
		if qctx.Err() != nil && ctx.Err() == nil {
			return SQLResult{}, fmt.Errorf("query interrupted after %s", budget)
		}
		if errors.Is(err, ErrSQLTooLarge) {
			return SQLResult{}, err
		}
		if se := (*sqlite.Error)(nil); errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_TOOBIG {
			return SQLResult{}, fmt.Errorf("%w: a value larger than %s", ErrSQLTooLarge, megabytes(MaxSQLValue))
		}
		return SQLResult{}, fmt.Errorf("sql: %w", err)
	}
	return res, nil
}

func runQuery(ctx context.Context, conn *sql.Conn, query string, limit int) (SQLResult, error) {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return SQLResult{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return SQLResult{}, err
	}
	res := SQLResult{Columns: cols, Rows: [][]any{}}
	size := 0 // text and blob bytes so far
	for rows.Next() {
		if limit > 0 && len(res.Rows) >= limit {
			res.Truncated = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return SQLResult{}, err
		}
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				size += len(v)
				if !utf8.Valid(v) {
					size += len(v) + 3 // shown as hex
				}
			case string:
				size += len(v)
			}
		}
		if size > MaxSQLResult {
			return SQLResult{}, fmt.Errorf("%w: the result is larger than %s (LIMIT the rows or pick fewer columns)", ErrSQLTooLarge, megabytes(MaxSQLResult))
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				if utf8.Valid(b) {
					vals[i] = string(b)
				} else {
					vals[i] = "x'" + hex.EncodeToString(b) + "'"
				}
			}
		}
		res.Rows = append(res.Rows, vals)
	}
	return res, rows.Err()
}

// megabytes says n bytes in whole megabytes (MiB), for messages.
func megabytes(n int64) string { return fmt.Sprintf("%d MB", n>>20) }

// setupViews attaches the sources read-only and creates the temp views.
func setupViews(ctx context.Context, conn *sql.Conn, sources []SQLSource) error {
	cols := map[string]string{}
	for _, v := range Views {
		cols[v.Name] = v.Columns
	}
	parts := map[string][]string{}
	for i, src := range sources {
		st, ix := fmt.Sprintf("s%d", i), fmt.Sprintf("x%d", i)
		file := src.File
		if file == "" {
			file = src.Store
		}
		for _, a := range []struct{ path, name string }{{file, st}, {src.Index, ix}} {
			if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS "+a.name, roURI(a.path)); err != nil {
				return fmt.Errorf("open %s read-only: %w", a.path, err)
			}
		}
		lit := "'" + strings.ReplaceAll(src.Store, "'", "''") + "'"
		for _, v := range []string{"sessions", "turns", "usage", "files", "refs", "tools"} {
			c := strings.TrimPrefix(cols[v], "store, ")
			parts[v] = append(parts[v], "SELECT "+lit+" AS store, "+c+" FROM "+ix+"."+v)
		}
		parts["events"] = append(parts["events"], "SELECT "+lit+" AS store, id, session_id, seq, kind, decode(data) AS json, char_len FROM "+st+".events")
	}
	for _, v := range Views {
		body := strings.Join(parts[v.Name], " UNION ALL ")
		if _, err := conn.ExecContext(ctx, "CREATE TEMP VIEW "+v.Name+" AS "+body); err != nil {
			return fmt.Errorf("create view %s: %w", v.Name, err)
		}
	}
	return nil
}

// actionName names an authorizer action for the refusal message.
func actionName(a sqlite.AuthorizerActionCode) string {
	switch a {
	case sqlite.AuthInsert:
		return "INSERT"
	case sqlite.AuthUpdate:
		return "UPDATE"
	case sqlite.AuthDelete:
		return "DELETE"
	case sqlite.AuthPragma:
		return "PRAGMA"
	case sqlite.AuthAttach:
		return "ATTACH"
	case sqlite.AuthDetach:
		return "DETACH"
	case sqlite.AuthTransaction:
		return "transaction"
	case sqlite.AuthSavepoint:
		return "SAVEPOINT"
	case sqlite.AuthAlterTable:
		return "ALTER TABLE"
	case sqlite.AuthReindex:
		return "REINDEX"
	case sqlite.AuthAnalyze:
		return "ANALYZE"
	}
	return fmt.Sprintf("action %d", a)
}
