package teamsync

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// URLEnv is the environment variable a database URL is read from when none
// is given.
const URLEnv = "LAZULI_PG"

// ErrNoURL reports that no database was named.
var ErrNoURL = errors.New("no team database: give --pg URL or set " + URLEnv)

// DB is a connection to a team database.
type DB struct {
	conn *pgx.Conn
	cfg  *pgx.ConnConfig // for the push's further connections
	// secrets are strings never to show in an error: the password.
	secrets []string
}

// ResolveURL returns url, or $LAZULI_PG when url is "".
func ResolveURL(u string) (string, error) {
	if u == "" {
		u = os.Getenv(URLEnv)
	}
	if strings.TrimSpace(u) == "" {
		return "", ErrNoURL
	}
	return u, nil
}

// Connect opens a connection to the database that dsn names: a libpq URL
// (postgres://…) or keyword/value string, with libpq's conventions: sslmode,
// PGPASSFILE and the PG* environment variables. No error it returns, nor
// any later error of the DB, contains the password.
func Connect(ctx context.Context, dsn string) (*DB, error) {
	secrets := passwords(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, redact(fmt.Errorf("bad database URL: %w", unwrapParse(err)), secrets)
	}
	if cfg.Password != "" {
		secrets = append(secrets, cfg.Password)
	}
	cfg.RuntimeParams["application_name"] = "lazuli"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, redact(connectError(cfg, err), secrets)
	}
	return &DB{conn: conn, cfg: cfg, secrets: secrets}, nil
}

// another opens one more connection to the same database.
func (db *DB) another(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, db.cfg.Copy())
	if err != nil {
		return nil, redact(connectError(db.cfg, err), db.secrets)
	}
	return conn, nil
}

// Close closes the connection.
func (db *DB) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return db.conn.Close(ctx)
}

// Conn returns the underlying connection, for tests.
func (db *DB) Conn() *pgx.Conn { return db.conn }

// wrap redacts err's message and prefixes it with what failed.
func (db *DB) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return redact(fmt.Errorf("%s: %w", what, describe(err)), db.secrets)
}

// connectError says in one line why a connection failed.
func connectError(cfg *pgx.ConnConfig, err error) error {
	where := cfg.Host
	if cfg.Port != 0 && !strings.HasPrefix(where, "/") {
		where = fmt.Sprintf("%s:%d", where, cfg.Port)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000":
			return fmt.Errorf("connect to %s as %s: %w (wrong password or user?)", where, cfg.User, errAuth)
		case "3D000":
			return fmt.Errorf("connect to %s: database %q does not exist: %w", where, cfg.Database, err)
		}
		return fmt.Errorf("connect to %s: %s: %w", where, pgErr.Message, err)
	}
	return fmt.Errorf("connect to %s: %w (%s)", where, errUnreachable, innermost(err))
}

var (
	errAuth        = errors.New("authentication failed")
	errUnreachable = errors.New("server not reachable")
)

// innermost is the message of err's deepest wrapped error: the cause
// without pgx's repetition of the connection parameters.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// unwrapParse drops pgx's echo of the connection string (it hides the
// password, but not the rest) from a parse error.
func unwrapParse(err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}

// describe turns a server error into its message, code and detail.
func describe(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")) {
		return fmt.Errorf("%w: %s", errConnLost, pgErr.Message)
	}
	if errors.As(err, &pgErr) {
		msg := pgErr.Message
		if pgErr.Detail != "" {
			msg += " (" + pgErr.Detail + ")"
		}
		return fmt.Errorf("%w: %s [SQLSTATE %s]", errServer, msg, pgErr.Code)
	}
	if pgconn.SafeToRetry(err) || isConnLost(err) {
		return fmt.Errorf("%w: %s", errConnLost, innermost(err))
	}
	return err
}

var (
	errServer   = errors.New("the server said")
	errConnLost = errors.New("connection to the server lost")
)

func isConnLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01"
	}
	// net.ErrClosed: the server ended the session (pg_terminate_backend)
	// and pgx closed the socket before the read that was waiting on it.
	return errors.Is(err, errConnLost) || errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "conn closed") ||
		strings.Contains(err.Error(), "unexpected EOF") || strings.Contains(err.Error(), "broken pipe") ||
		strings.Contains(err.Error(), "connection reset")
}

// passwords returns the password a URL or keyword/value string carries.
func passwords(dsn string) []string {
	var out []string
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			out = append(out, pw, url.QueryEscape(pw), url.PathEscape(pw))
		}
		if pw := u.Query().Get("password"); pw != "" {
			out = append(out, pw)
		}
	}
	for _, f := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(f, "password="); ok && v != "" {
			out = append(out, strings.Trim(v, "'"))
		}
	}
	return out
}

// redactedError is an error whose message had its secrets replaced; it
// unwraps to the original so errors.Is and As still work.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact replaces every secret in err's message with "xxxxx".
func redact(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range secrets {
		if len(s) > 0 {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return &redactedError{msg: msg, err: err}
}
