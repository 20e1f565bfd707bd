package teamsync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/search"
)

// The tests of this file play a damaged or hostile team database (issue 28,
// item 3): rows a push never writes are put in the real server with SQL,
// then pulled, listed and shown.

// target is the WHERE clause of the event and compaction rows of the team
// session numbered $1.
const target = `(store_id, session_id, session_created) = (SELECT store_id, session_id, created FROM lazuli_sessions WHERE team_id = $1)`

// hostileSetup pushes a store holding the session "victim" (4 events, a
// compaction) into a new database and returns the database and the
// victim's team number.
func hostileSetup(t *testing.T) (*DB, int64) {
	t.Helper()
	_, url := testDB(t)
	db := connect(t, url)
	ctx := context.Background()
	st := openStore(t, genStore(t, t.TempDir(), 2, 60, 31))
	s, _, err := st.Sessions().CreateWithEvents(ctx, "feature/x", "victim", []codec.Event{
		codec.UserMessage("where is the parser"), codec.AssistantText("in parse.go"),
		codec.UserMessage("fix it"), codec.AssistantText("done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Compactions().Add(ctx, s.ID, 2, "the parser is in parse.go"); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, db, st, opts("alpha")); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := db.conn.QueryRow(ctx, `SELECT team_id FROM lazuli_sessions WHERE name = 'victim'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return db, id
}

// fileState is the bytes of a store file and of its journals.
func fileState(t *testing.T, path string) [32]byte {
	t.Helper()
	h := sha256.New()
	for _, suffix := range []string{"", "-wal", "-journal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		h.Write([]byte(suffix))
		h.Write(b)
	}
	return [32]byte(h.Sum(nil))
}

// zstdOf compresses n bytes of JSON: a UserMessage of n-32 'a's.
func zstdOf(t *testing.T, n int) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	js := append([]byte(`{"UserMessage":{"content":"`), bytes.Repeat([]byte("a"), n-32)...)
	js = append(js, `"}}`...)
	return enc.EncodeAll(js, nil)
}

// TestPullRefusesHostileRows: a session with one row a push never writes
// is refused whole, with one line naming it and the reason, before
// anything is written: the local store keeps its bytes and passes check.
func TestPullRefusesHostileRows(t *testing.T) {
	bomb := zstdOf(t, codec.MaxEventSize+1024) // a few KiB, 64 MiB decoded (the load limit: store's TestCheckRaw)
	cases := []struct {
		name string
		sql  []string // run with $1 = the victim's team number (statements without $1 take none)
		args [][]any  // extra arguments, by statement
		want string
	}{
		{"undecodable zstd frame", []string{`UPDATE lazuli_events SET payload = substring(payload from 1 for length(payload) - 3) WHERE ` + target + ` AND seq = 2`}, nil,
			"event 2 cannot be decompressed"},
		{"zstd frame header asking too much", []string{`UPDATE lazuli_events SET payload = '\x28b52ffd00deadbeef'::bytea WHERE ` + target + ` AND seq = 2`}, nil,
			"event 2 decodes to more than 64.0 MiB"},
		{"payload not UTF-8", []string{`UPDATE lazuli_events SET payload = '\xfffe7b7d'::bytea WHERE ` + target + ` AND seq = 2`}, nil,
			"event 2 cannot be decompressed"},
		{"payload not an event", []string{`UPDATE lazuli_events SET payload = convert_to('{"Nope": 1}', 'UTF8') WHERE ` + target + ` AND seq = 3`}, nil,
			"event 3 is not a valid event"},
		{"zstd bomb", []string{`UPDATE lazuli_events SET payload = $2 WHERE ` + target + ` AND seq = 1`}, [][]any{{bomb}},
			"event 1 decodes to more than 64.0 MiB"},
		{"wrong kind", []string{`UPDATE lazuli_events SET kind = 'AssistantText' WHERE ` + target + ` AND seq = 1`}, nil,
			"event 1 is a UserMessage stored as kind AssistantText"},
		{"unknown kind", []string{`UPDATE lazuli_events SET kind = 'Evil' WHERE ` + target + ` AND seq = 4`}, nil,
			`event 4 has an unknown kind "Evil"`},
		{"negative seq", []string{`UPDATE lazuli_events SET seq = -5 WHERE ` + target + ` AND seq = 1`}, nil,
			"its event 1 has seq -5"},
		{"gapped seq", []string{`UPDATE lazuli_events SET seq = 9 WHERE ` + target + ` AND seq = 4`}, nil,
			"its event 4 has seq 9"},
		{"duplicate seq", []string{`UPDATE lazuli_events SET seq = 2 WHERE ` + target + ` AND seq = 3`}, nil,
			"its event 3 has seq 2"},
		{"wrong char_len", []string{`UPDATE lazuli_events SET char_len = char_len + 7 WHERE ` + target + ` AND seq = 2`}, nil,
			"event 2 has char_len 18, but its event's size is 11"},
		{"negative char_len", []string{`UPDATE lazuli_events SET char_len = -1 WHERE ` + target + ` AND seq = 2`}, nil,
			"event 2 has a negative char_len"},
		{"worktree climbing out", []string{`UPDATE lazuli_sessions SET worktree = '../../etc' WHERE team_id = $1`}, nil,
			`its worktree "../../etc" is a path, not a branch name`},
		{"worktree absolute", []string{`UPDATE lazuli_sessions SET worktree = '/etc/cron.d' WHERE team_id = $1`}, nil,
			`its worktree "/etc/cron.d" is a path, not a branch name`},
		{"worktree with a control character", []string{`UPDATE lazuli_sessions SET worktree = E'main\x1b[2J' WHERE team_id = $1`}, nil,
			"holds a control character"},
		{"negative compaction", []string{`UPDATE lazuli_compactions SET after_seq = -3 WHERE ` + target}, nil,
			"a compaction covers up to seq -3"},
		{"NULL seq", []string{`ALTER TABLE lazuli_events ALTER COLUMN seq DROP NOT NULL`,
			`UPDATE lazuli_events SET seq = NULL WHERE ` + target + ` AND seq = 4`}, nil, "has a NULL seq, kind or char_len"},
		{"NULL name", []string{`ALTER TABLE lazuli_sessions ALTER COLUMN name DROP NOT NULL`,
			`UPDATE lazuli_sessions SET name = NULL WHERE team_id = $1`}, nil, "its row is damaged (name is NULL)"},
		{"cost not a number", []string{`UPDATE lazuli_sessions SET cost_usd = 'NaN' WHERE team_id = $1`}, nil,
			"its row is damaged (cost_usd is not a number)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db, id := hostileSetup(t)
			for i, q := range tc.sql {
				args := []any{}
				if strings.Contains(q, "$1") {
					args = append(args, id)
				}
				if i < len(tc.args) {
					args = append(args, tc.args[i]...)
				}
				if _, err := db.conn.Exec(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			path := genStore(t, t.TempDir(), 3, 90, 32) // the healthy local store
			dst := openStore(t, path)
			before := fileState(t, path)
			local, dup, err := db.Pull(ctx, id, dst)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Pull(%d) = S%d, %v, %v; want ErrRefused saying %q", id, local, dup, err, tc.want)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "team session ") {
				t.Errorf("Pull error %q: want one line naming the team session", msg)
			}
			if after := fileState(t, path); after != before {
				t.Errorf("the refused pull changed the local store's file")
			}
			rep, err := dst.Check(ctx)
			if err != nil || !rep.OK() || rep.Sessions != 3 {
				t.Errorf("local store after the refused pull: check ok %v, %d sessions, %v, findings %+v", rep.OK(), rep.Sessions, err, rep.Findings)
			}
		})
	}
}

// TestPullSoundSessions: the sessions a push writes are pulled, and the
// local store passes check: one with compactions, one whose secrets the
// push redacted (a Discord bot token with no "discord" near it, a Hugging
// Face token with digits: issue 28 item 12), whose char_len is then the
// redacted text's size.
func TestPullSoundSessions(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	ctx := context.Background()
	st := openStore(t, genStore(t, t.TempDir(), 3, 200, 33))
	discord := base64.RawStdEncoding.EncodeToString([]byte("1186476543210987654")) + ".GaB3dE.Zq8xV2mKp4Lr7Tn1Yw6Hs9Jd3Fg5Bc0Ne"
	hf := "hf" + "_" + "Q7mZ2xK9pL4vR8tN1wY6hS3jD5fG0bC7aE"
	s, _, err := st.Sessions().CreateWithEvents(ctx, "main", "secrets", []codec.Event{
		codec.UserMessage("start the bot with " + discord), codec.AssistantText("Logged in to the Hub as " + hf),
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Push(ctx, db, st, opts("alpha"))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]int{}
	for _, r := range rep.Redactions {
		rules[r.Rule]++
	}
	if rules["discord-bot-token"] != 1 || rules["huggingface-token"] != 1 {
		t.Fatalf("push redacted %v, want a discord-bot-token and a huggingface-token", rules)
	}
	var leaks int
	for _, secret := range []string{discord, hf} {
		var n int
		if err := db.conn.QueryRow(ctx, `SELECT count(*) FROM lazuli_events WHERE store_id = $1 AND (text LIKE '%'||$2||'%'
			OR data::text LIKE '%'||$2||'%' OR position(convert_to($2, 'UTF8') IN payload) > 0)`, rep.StoreID, secret).Scan(&n); err != nil {
			t.Fatal(err)
		}
		leaks += n
	}
	if leaks != 0 {
		t.Fatalf("%d rows hold a secret the push should have redacted", leaks)
	}
	list, err := db.List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	dst := openStore(t, filepath.Join(t.TempDir(), "pulled.azs"))
	for _, ts := range list {
		id, _, err := db.Pull(ctx, ts.ID, dst)
		if err != nil {
			t.Fatalf("Pull(%d) = %v", ts.ID, err)
		}
		if ts.SessionID == s.ID {
			evs, err := dst.Events().All(ctx, id)
			if err != nil || len(evs) != 2 || evs[0].Event.Content != "start the bot with [REDACTED:discord-bot-token]" {
				t.Fatalf("pulled redacted session %+v, %v", evs, err)
			}
		}
	}
	chk, err := dst.Check(ctx)
	if err != nil || !chk.OK() || chk.Sessions != int64(len(list)) {
		t.Fatalf("pulled store: ok %v, %d sessions of %d, %v, %+v", chk.OK(), chk.Sessions, len(list), err, chk.Findings)
	}
	for _, f := range chk.Findings {
		if f.Code == "char_len_mismatch" {
			t.Errorf("pulled store: %+v", f)
		}
	}
}

// TestDamagedRowListedAndShown: one session row with a NULL name (a
// hostile or damaged team database) never breaks listing, showing,
// searching or totalling the others: it is listed marked damaged, and
// shown.
func TestDamagedRowListedAndShown(t *testing.T) {
	db, id := hostileSetup(t)
	ctx := context.Background()
	for _, q := range []string{`ALTER TABLE lazuli_sessions ALTER COLUMN name DROP NOT NULL`,
		`ALTER TABLE lazuli_sessions ALTER COLUMN worktree DROP NOT NULL`,
		`UPDATE lazuli_sessions SET name = NULL, worktree = NULL WHERE team_id = $1`} {
		args := []any{}
		if strings.Contains(q, "$1") {
			args = append(args, id)
		}
		if _, err := db.conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	list, err := db.List(ctx, Filter{})
	if err != nil {
		t.Fatalf("List = %v", err)
	}
	if len(list) != 3 {
		t.Fatalf("List = %d sessions, want 3", len(list))
	}
	for _, s := range list {
		want := ""
		if s.ID == id {
			want = "name is NULL, worktree is NULL"
		}
		if s.Damaged != want || s.Store().Damage != want {
			t.Errorf("List: T%d damaged %q, want %q", s.ID, s.Damaged, want)
		}
		if _, events, _, err := db.Transcript(ctx, s.ID); err != nil || len(events) == 0 {
			t.Errorf("Transcript(%d) = %d events, %v", s.ID, len(events), err)
		}
	}
	if res, err := db.Search(ctx, "parse.go", search.Options{Limit: 10}); err != nil || len(res.Hits) == 0 {
		t.Errorf("Search = %+v, %v", res, err)
	}
	for _, by := range []string{"worktree", "session"} {
		if rows, err := db.Stats(ctx, by, ""); err != nil || len(rows) == 0 {
			t.Errorf("Stats(%s) = %+v, %v", by, rows, err)
		}
	}
	if _, err := db.SessionUsage(ctx, id); err != nil {
		t.Errorf("SessionUsage(%d) = %v", id, err)
	}
}
