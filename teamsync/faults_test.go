package teamsync

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/pgtest"
	"github.com/lazuli-app/lazuli/store"
)

// hookAt returns a Hook that runs fn once, at the nth call whose point is
// point.
func hookAt(point string, n int, fn func() error) func(string) error {
	seen := 0
	return func(p string) error {
		if p != point {
			return nil
		}
		if seen++; seen == n {
			return fn()
		}
		return nil
	}
}

// pushAgainAndCompare pushes st over a new connection and checks that the
// database then holds exactly its rows.
func pushAgainAndCompare(t *testing.T, url string, st *store.Store) {
	t.Helper()
	db := connect(t, url)
	o := opts("m")
	o.BatchRows = 100
	rep, err := Push(context.Background(), db, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dbCounts(t, db, rep.StoreID), localCounts(t, st); got != want {
		t.Fatalf("database %+v, store %+v", got, want)
	}
}

func oneLine(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one saying %q", want)
	}
	msg := err.Error()
	t.Logf("error: %s", msg)
	if strings.Contains(msg, "\n") {
		t.Fatalf("error on more than one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("error %q does not say %q", msg, w)
		}
	}
}

// TestPushServerRestarted restarts the server in the middle of a push: the
// push fails with a one-line error, and the next push completes the rows.
func TestPushServerRestarted(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.URL(srv.CreateDB(t), pgtest.Superuser)
	st := openStore(t, genStore(t, t.TempDir(), 5, 800, 5))
	db, err := Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o := opts("m")
	o.BatchRows = 100
	o.Hook = hookAt("events-committed", 3, func() error {
		if err := srv.Stop(); err != nil {
			return err
		}
		return srv.Start()
	})
	_, err = Push(context.Background(), db, st, o)
	oneLine(t, err, "connection")
	pushAgainAndCompare(t, url, st)
}

// TestPushConnectionTerminated has the server close the push's connection
// (pg_terminate_backend) in the middle of a COPY.
func TestPushConnectionTerminated(t *testing.T) {
	srv, url := testDB(t)
	st := openStore(t, genStore(t, t.TempDir(), 5, 800, 6))
	db := connect(t, url)
	pid := db.conn.PgConn().PID()
	o := opts("m")
	o.BatchRows = 100
	o.Writers = 1 // the push's one connection is the one closed
	o.Hook = hookAt("copy-row", 12, func() error {
		_, err := srv.Psql("postgres", fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid))
		return err
	})
	_, err := Push(context.Background(), db, st, o)
	oneLine(t, err, "connection to the server lost", "push again to resume")
	pushAgainAndCompare(t, url, st)
}

// TestConcurrentPushers pushes two stores (two machines) and one of them a
// second time, all at once: none fails, waits forever or doubles a row.
func TestConcurrentPushers(t *testing.T) {
	_, url := testDB(t)
	a := openStore(t, genStore(t, t.TempDir(), 5, 900, 7))
	b := openStore(t, genStore(t, t.TempDir(), 5, 900, 8))
	a2 := openStore(t, a.Path()) // the same file, another pusher
	var wg sync.WaitGroup
	errs := make([]error, 3)
	ids := make([]string, 3)
	for i, st := range []*store.Store{a, b, a2} {
		db := connect(t, url)
		wg.Go(func() {
			o := opts(fmt.Sprintf("m%d", i))
			o.BatchRows = 50
			rep, err := Push(context.Background(), db, st, o)
			errs[i], ids[i] = err, rep.StoreID
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("pusher %d: %v", i, err)
		}
	}
	if ids[0] != ids[2] || ids[0] == ids[1] {
		t.Fatalf("store ids %q: the two pushers of one file must agree, the other store differ", ids)
	}
	db := connect(t, url)
	for i, st := range []*store.Store{a, b} {
		if got, want := dbCounts(t, db, ids[i]), localCounts(t, st); got != want {
			t.Fatalf("store %d: database %+v, store %+v", i, got, want)
		}
	}
}

// TestConnectErrors: a bad URL, a wrong password, a server that is down
// and schema versions this Lazuli cannot use give one-line errors that
// never show the password.
func TestConnectErrors(t *testing.T) {
	srv := pgtest.Start(t)
	name := srv.CreateDB(t)
	ctx := context.Background()

	_, err := Connect(ctx, "postgres://u:hunter2secret@host:notaport/db")
	oneLine(t, err, "bad database URL")
	if strings.Contains(err.Error(), "hunter2secret") {
		t.Fatalf("error shows the password: %v", err)
	}

	const wrong = "Wr0ng-Passw0rd-xyz"
	_, err = Connect(ctx, srv.PasswordURL(name, wrong))
	oneLine(t, err, "authentication failed", pgtest.PasswordUser)
	if strings.Contains(err.Error(), wrong) || !errors.Is(err, errAuth) {
		t.Fatalf("wrong password error %q", err)
	}
	if db, err := Connect(ctx, srv.PasswordURL(name, pgtest.Password)); err != nil {
		t.Fatalf("right password: %v", err)
	} else {
		db.Close()
	}

	db := connect(t, srv.URL(name, pgtest.Superuser))
	_, err = db.List(ctx, Filter{})
	oneLine(t, err, "no Lazuli schema yet", "sync push")
	var se *SchemaError
	if !errors.As(err, &se) || se.Have != 0 {
		t.Fatalf("empty database: %v", err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.conn.Exec(ctx, `UPDATE lazuli_schema SET version = 0`); err != nil {
		t.Fatal(err)
	}
	_, err = db.List(ctx, Filter{})
	oneLine(t, err, "run lazuli sync push")
	if _, err := db.conn.Exec(ctx, `UPDATE lazuli_schema SET version = $1`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, genStore(t, t.TempDir(), 1, 10, 9))
	_, err = Push(ctx, db, st, opts("m"))
	oneLine(t, err, fmt.Sprintf("schema version %d, newer than this Lazuli's %d: upgrade Lazuli", SchemaVersion+1, SchemaVersion))

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = Connect(ctx, srv.PasswordURL(name, wrong))
	oneLine(t, err, "server not reachable")
	if strings.Contains(err.Error(), wrong) {
		t.Fatalf("error shows the password: %v", err)
	}
}

// TestPushRedactsSecrets: a token in a prompt, a reply and a session name
// leaves the machine redacted, in the text, the jsonb and the payload, and
// the report says so; --allow-secrets sends it as is.
func TestPushRedactsSecrets(t *testing.T) {
	_, url := testDB(t)
	ctx := context.Background()
	token := "gh" + "p_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df8Gh4Jk0LmNb7V"
	for _, allow := range []bool{false, true} {
		st := openStore(t, genStore(t, t.TempDir(), 1, 20, 10))
		s, _, err := st.Sessions().CreateWithEvents(ctx, "main", "deploy with "+token, []codec.Event{
			codec.UserMessage("push with GITHUB_TOKEN=" + token), codec.AssistantText("ok"),
		})
		if err != nil {
			t.Fatal(err)
		}
		db := connect(t, url)
		o := opts("m")
		o.AllowSecrets = allow
		rep, err := Push(ctx, db, st, o)
		if err != nil {
			t.Fatal(err)
		}
		var leaks int
		err = db.conn.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM lazuli_events WHERE store_id = $1 AND (text LIKE '%'||$2||'%' OR data::text LIKE '%'||$2||'%'
				OR position(convert_to($2, 'UTF8') IN payload) > 0 OR position(convert_to($2, 'UTF8') IN
				CASE WHEN kind = '' THEN ''::bytea ELSE payload END) > 0))
			+ (SELECT count(*) FROM lazuli_sessions WHERE store_id = $1 AND name LIKE '%'||$2||'%')`, rep.StoreID, token).Scan(&leaks)
		if err != nil {
			t.Fatal(err)
		}
		team, err := db.List(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var pushed Session
		for _, x := range team {
			if x.StoreID == rep.StoreID && x.SessionID == s.ID {
				pushed = x
			}
		}
		events, err := db.Events(ctx, pushed)
		if err != nil || len(events) != 2 {
			t.Fatalf("events %v, %v", events, err)
		}
		decoded := events[0].Event.Content + pushed.Name
		if allow {
			if len(rep.Redactions) != 0 || !strings.Contains(decoded, token) {
				t.Fatalf("--allow-secrets: redactions %+v, sent %q", rep.Redactions, decoded)
			}
			continue
		}
		if leaks != 0 || strings.Contains(decoded, token) || !strings.Contains(events[0].Event.Content, "[REDACTED:github-token]") {
			t.Fatalf("%d rows leak the token; decoded %q", leaks, decoded)
		}
		if len(rep.Redactions) != 2 || rep.Redactions[0].Rule != "github-token" || strings.Contains(rep.Redactions[0].Preview, token) {
			t.Fatalf("redactions %+v", rep.Redactions)
		}
	}
}

// TestPushForkedCopy: a copy of a pushed store that diverges gets an id of
// its own instead of mixing its rows into the original's.
func TestPushForkedCopy(t *testing.T) {
	_, url := testDB(t)
	ctx := context.Background()
	dir := t.TempDir()
	path := genStore(t, dir, 2, 50, 11)
	orig := openStore(t, path)
	db := connect(t, url)
	first, err := Push(ctx, db, orig, opts("m"))
	if err != nil {
		t.Fatal(err)
	}
	copyPath := dir + "/copy.azs"
	if err := orig.Transfer().Export(ctx, []int64{1, 2}, copyPath); err != nil {
		t.Fatal(err)
	}
	cp := openStore(t, copyPath)
	if err := cp.SetStoreID(ctx, first.StoreID); err != nil { // as a file copy would carry it
		t.Fatal(err)
	}
	if _, err := cp.Events().Append(ctx, 1, []codec.Event{codec.UserMessage("only in the copy")}); err != nil {
		t.Fatal(err)
	}
	if _, err := orig.Events().Append(ctx, 2, []codec.Event{codec.UserMessage("only in the original"), codec.AssistantText("more")}); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, db, orig, opts("m")); err != nil {
		t.Fatal(err)
	}
	rep, err := Push(ctx, db, cp, opts("m"))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Forked || rep.StoreID == first.StoreID {
		t.Fatalf("copy pushed as %+v", rep)
	}
	for _, c := range []struct {
		st *store.Store
		id string
	}{{orig, first.StoreID}, {cp, rep.StoreID}} {
		if got, want := dbCounts(t, db, c.id), localCounts(t, c.st); got != want {
			t.Fatalf("%s: database %+v, store %+v", c.st.Path(), got, want)
		}
	}
}

// TestPushUndecodableEvent: an event whose payload cannot be decoded (so
// not scanned) goes without its bytes, and a pull leaves it out.
func TestPushUndecodableEvent(t *testing.T) {
	_, url := testDB(t)
	ctx := context.Background()
	dir := t.TempDir()
	path := dir + "/s.azs"
	st0, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st0.Sessions().CreateWithEvents(ctx, "main", "x", []codec.Event{
		codec.UserMessage("token " + "gh" + "p_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df8Gh4Jk0LmNb7V"), codec.AssistantText("ok"),
	})
	if err != nil {
		t.Fatal(err)
	}
	st0.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// A zstd frame header that does not decode, followed by the secret.
	if _, err := raw.Exec(`UPDATE events SET data = x'28b52ffd0058' || CAST('ghp_Zx9Qw3Er7Ty1Ui5Op2As6Df8Gh4Jk0LmNb7V' AS BLOB) WHERE seq = 1`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	st := openStore(t, path)
	db := connect(t, url)
	rep, err := Push(ctx, db, st, opts("m"))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.conn.QueryRow(ctx, `SELECT count(*) FROM lazuli_events WHERE store_id = $1 AND length(payload) = 0 AND seq = 1`, rep.StoreID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if rep.Unscanned != 1 || n != 1 {
		t.Fatalf("unscanned %d, rows without payload %d", rep.Unscanned, n)
	}
	list, err := db.List(ctx, Filter{})
	if err != nil || len(list) != 1 || list[0].SessionID != s.ID {
		t.Fatalf("list %+v, %v", list, err)
	}
	dst := openStore(t, dir+"/pulled.azs")
	id, _, err := db.Pull(ctx, list[0].ID, dst)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dst.Sessions().Get(ctx, id)
	if err != nil || got.EventCount != 1 {
		t.Fatalf("pulled %+v, %v", got, err)
	}
}
