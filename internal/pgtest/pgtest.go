// Package pgtest starts a real PostgreSQL server for tests: initdb in a
// temporary folder, a Unix socket in a temporary folder, no TCP, torn down
// after. The server binaries come from Debian's postgresql package
// (scripts/install-deps.sh installs it), found under
// /usr/lib/postgresql/<version>/bin or in $LAZULI_PG_BIN.
//
// PostgreSQL refuses to run as root, so when the tests run as root the
// server runs as the unprivileged "postgres" system user the package
// creates. Under CI (CI=true or CI=1) or with LAZULI_PG_REQUIRED=1 a missing
// server fails the test; elsewhere the test is skipped with one line (the
// decision of internal/fixtures), also written to $LAZULI_PG_SKIPPED_FILE
// when set, so that `make test` can say loudly that they did not run.
package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// Superuser is the server's superuser; it connects over the socket without
// a password (trust), as do all users except PasswordUser.
const Superuser = "postgres"

// PasswordUser is a role that must give its password (scram-sha-256), for
// tests of wrong passwords; its password is Password.
const (
	PasswordUser = "lazuli_pw"
	Password     = "s3cret-Pa55word"
)

// RequiredEnv set to 1 makes a missing server a failure outside CI too.
const RequiredEnv = "LAZULI_PG_REQUIRED"

// SkippedFileEnv names a file to which Missing appends one line (the
// test's name and why) for each test it skips; `make test` sets it and
// prints a banner after the tests when the file is not empty.
const SkippedFileEnv = "LAZULI_PG_SKIPPED_FILE"

// Required reports whether a missing server fails a test: when missing
// fixtures do (CI, LAZULI_FIXTURES_REQUIRED=1; see internal/fixtures), or
// with LAZULI_PG_REQUIRED=1.
func Required() bool { return os.Getenv(RequiredEnv) == "1" || fixtures.Required() }

// Server is one PostgreSQL server of a test.
type Server struct {
	bin     string // the folder of initdb, pg_ctl, postgres
	root    string // the temporary folder holding data/ and sock/
	data    string
	Socket  string               // the folder of the Unix socket
	runAs   *syscall.SysProcAttr // the server's user, when started as root
	mu      sync.Mutex
	running bool
}

var dbSeq atomic.Int64

// BinDir finds the server binaries, or says why they are missing.
func BinDir() (string, error) {
	if d := os.Getenv("LAZULI_PG_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL server (initdb under /usr/lib/postgresql/*/bin); install it with scripts/install-deps.sh or apt-get install postgresql")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start starts a server of its own for tb and stops it when tb ends. A
// missing server skips tb (or fails it; see Required).
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := New()
	if err != nil {
		Missing(tb, err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Missing skips tb with one line naming err, or fails it when a server is
// required.
func Missing(tb testing.TB, err error) {
	tb.Helper()
	if Required() {
		tb.Fatalf("PostgreSQL test server: %v", err)
	}
	if path := os.Getenv(SkippedFileEnv); path != "" {
		if werr := noteSkipped(path, tb.Name(), err); werr != nil {
			tb.Errorf("PostgreSQL test server: note the skip in %s: %v", path, werr)
		}
	}
	tb.Skipf("PostgreSQL test server: %v (set %s=1 to make this a failure)", err, RequiredEnv)
}

// noteSkipped appends "name: err" to the file at path, in one write (the
// tests of several packages may append at once).
func noteSkipped(path, name string, err error) error {
	f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if ferr != nil {
		return ferr
	}
	_, werr := f.WriteString(strings.ReplaceAll(fmt.Sprintf("%s: %v", name, err), "\n", " ") + "\n")
	return errors.Join(werr, f.Close())
}

// New creates and starts a server; Close stops it and removes its folder.
func New() (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "lazuli-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, root: root, data: filepath.Join(root, "data"), Socket: filepath.Join(root, "sock")}
	if err := s.setup(); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	if err := s.Start(); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return s, nil
}

func (s *Server) setup() error {
	if err := os.Chmod(s.root, 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(s.Socket, 0o755); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("running as root needs the postgres system user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.runAs = asUser(uid, gid)
		for _, d := range []string{s.root, s.Socket} {
			if err := os.Chown(d, uid, gid); err != nil {
				return err
			}
		}
	}
	pwfile := filepath.Join(s.root, "pw")
	if err := os.WriteFile(pwfile, []byte("unused\n"), 0o644); err != nil {
		return err
	}
	if _, err := s.run("initdb", "-D", s.data, "-U", Superuser, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8", "--pwfile", pwfile); err != nil {
		return err
	}
	hba := "local all " + PasswordUser + " scram-sha-256\nlocal all all trust\n"
	conf := "listen_addresses = ''\nunix_socket_directories = '" + s.Socket + "'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n" +
		"max_connections = 40\nshared_buffers = 64MB\nmax_wal_size = 1GB\nlog_min_messages = fatal\nlogging_collector = off\n"
	if err := s.appendFile("pg_hba.conf", hba, true); err != nil {
		return err
	}
	return s.appendFile("postgresql.conf", conf, false)
}

func (s *Server) appendFile(name, text string, replace bool) error {
	p := filepath.Join(s.data, name)
	flag := os.O_WRONLY | os.O_APPEND
	if replace {
		flag = os.O_WRONLY | os.O_TRUNC
	}
	f, err := os.OpenFile(p, flag, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// run runs one of the server's programs as the server's user.
func (s *Server) run(prog string, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(s.bin, prog), args...)
	cmd.Dir = s.root
	cmd.SysProcAttr = s.runAs
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s: %w: %s", prog, err, strings.TrimSpace(lastLines(out.String(), 5)))
	}
	return out.String(), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Start starts the (stopped) server and waits until it accepts connections.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return nil
	}
	if _, err := s.run("pg_ctl", "-D", s.data, "-l", filepath.Join(s.root, "log"), "-w", "-t", "120", "-o", "-k "+s.Socket, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.root, "log"))
		return fmt.Errorf("%w (log: %s)", err, lastLines(string(log), 5))
	}
	s.running = true
	return nil
}

// Stop stops the server (fast shutdown: open connections are closed).
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return nil
	}
	if _, err := s.run("pg_ctl", "-D", s.data, "-m", "fast", "-w", "-t", "120", "stop"); err != nil {
		return err
	}
	s.running = false
	return nil
}

// Close stops the server and removes its folder.
func (s *Server) Close() {
	_ = s.Stop()
	_ = os.RemoveAll(s.root)
}

// URL returns a libpq URL for database db as user, over the socket.
func (s *Server) URL(db, user string) string {
	q := url.Values{"host": {s.Socket}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User(user), Path: "/" + db, RawQuery: q.Encode()}).String()
}

// PasswordURL returns a libpq URL for db as PasswordUser with password pw.
func (s *Server) PasswordURL(db, pw string) string {
	q := url.Values{"host": {s.Socket}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.UserPassword(PasswordUser, pw), Path: "/" + db, RawQuery: q.Encode()}).String()
}

// Psql runs one SQL command with psql as the superuser on db.
func (s *Server) Psql(db, command string) (string, error) {
	return s.run("psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", s.Socket, "-U", Superuser, "-d", db, "-c", command)
}

// CreateDB creates a new, empty database (and PasswordUser, once) and
// returns its name.
func (s *Server) CreateDB(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	if _, err := s.Psql("postgres", "CREATE DATABASE "+name); err != nil {
		tb.Fatal(err)
	}
	_, _ = s.Psql("postgres", "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '"+PasswordUser+"') THEN CREATE ROLE "+PasswordUser+" LOGIN PASSWORD '"+Password+"'; END IF; END$$")
	return name
}

// clockTicks is the unit of /proc/PID/stat's times: USER_HZ, 100 on
// Linux.
const clockTicks = 100

// CPU returns the processor time the server has used so far: its
// postmaster's, with that of its ended children, and that of the
// children still running (the backends of open connections). For
// benchmarks, on Linux.
func (s *Server) CPU() (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		return 0, fmt.Errorf("postmaster.pid: %w", err)
	}
	own, _, err := procTimes(pid, true)
	if err != nil {
		return 0, err
	}
	total := own
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		t, ppid, err := procTimes(child, false)
		if err == nil && ppid == pid {
			total += t
		}
	}
	return time.Duration(total) * time.Second / clockTicks, nil
}

// procTimes returns a process's user and system ticks (with its reaped
// children's when children is set) and its parent's pid.
func procTimes(pid int, children bool) (ticks int64, ppid int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The fields after the command name, which is in parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ppid, _ = strconv.Atoi(f[1])
	n := 2 // utime and stime are fields 14 and 15 (f[11], f[12]); cutime, cstime f[13], f[14]
	if children {
		n = 4
	}
	for _, v := range f[11 : 11+n] {
		x, _ := strconv.ParseInt(v, 10, 64)
		ticks += x
	}
	return ticks, ppid, nil
}
