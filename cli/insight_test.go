package cli

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/insight"
)

// expectedUsage sums a fixture's tokens and cost straight from its JSONL,
// by the rules stated in agents/usage.go, without Lazuli's parsers.
type expectedUsage struct {
	in, out, cr, cw, reasoning int64
	cost                       float64
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func sumFixture(t *testing.T, path string) expectedUsage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var e expectedUsage
	type msg struct {
		u     map[string]any
		model string
	}
	claudeMsgs := map[string]msg{}
	var codexTotal map[string]any
	codexModel, sawResult := "", false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line["type"] {
		case "turn_context":
			codexModel, _ = obj(line["payload"])["model"].(string)
		case "result":
			sawResult = true
			if mu := obj(line["modelUsage"]); len(mu) > 0 {
				for _, m := range mu {
					m := obj(m)
					e.in += num(m["inputTokens"])
					e.out += num(m["outputTokens"])
					e.cr += num(m["cacheReadInputTokens"])
					e.cw += num(m["cacheCreationInputTokens"])
					c, _ := m["costUSD"].(float64)
					e.cost += c
				}
			} else if u := obj(line["usage"]); u != nil {
				e.in += num(u["input_tokens"])
				e.out += num(u["output_tokens"])
				e.cr += num(u["cache_read_input_tokens"])
				e.cw += num(u["cache_creation_input_tokens"])
				c, _ := line["total_cost_usd"].(float64)
				e.cost += c
			}
		case "assistant":
			m := obj(line["message"])
			if u := obj(m["usage"]); u != nil && m["model"] != "<synthetic>" {
				id, _ := m["id"].(string)
				model, _ := m["model"].(string)
				claudeMsgs[id] = msg{u, model} // the message's last line wins
			}
		case "turn.completed":
			u := obj(line["usage"])
			in, cached := num(u["input_tokens"]), num(u["cached_input_tokens"])
			e.in += in - cached
			e.cr += cached
			e.out += num(u["output_tokens"])
			e.reasoning += num(u["reasoning_output_tokens"])
			e.cost += insight.EstimateCost("codex", "codex", in-cached, num(u["output_tokens"]), cached, 0)
		case "event_msg":
			p := obj(line["payload"])
			if p["type"] == "token_count" {
				if t := obj(obj(p["info"])["total_token_usage"]); t != nil {
					codexTotal = t
				}
			}
		}
	}
	if sawResult { // stream-json: the result line holds the run's totals
		claudeMsgs = nil
	}
	for _, m := range claudeMsgs {
		in, out, cr, cw := num(m.u["input_tokens"]), num(m.u["output_tokens"]), num(m.u["cache_read_input_tokens"]), num(m.u["cache_creation_input_tokens"])
		e.in, e.out, e.cr, e.cw = e.in+in, e.out+out, e.cr+cr, e.cw+cw
		e.cost += insight.EstimateCost(m.model, "claude", in, out, cr, cw)
	}
	if codexTotal != nil {
		in, cached := num(codexTotal["input_tokens"]), num(codexTotal["cached_input_tokens"])
		e.in += in - cached
		e.cr += cached
		e.out += num(codexTotal["output_tokens"])
		e.reasoning += num(codexTotal["reasoning_output_tokens"])
		e.cost += insight.EstimateCost(codexModel, "codex", in-cached, num(codexTotal["output_tokens"]), cached, 0)
	}
	return e
}

// TestStatsMatchFixtures imports real-cli captures of all four formats and
// checks that `lazuli stats --json` totals equal the sums computed above
// straight from the JSONL.
func TestStatsMatchFixtures(t *testing.T) {
	needShared(t)
	rc, err := filepath.Abs(filepath.Join(sharedDir, "real-cli"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{
		filepath.Join(rc, "claude-a-multitool", "stdout.jsonl"),
		filepath.Join(rc, "claude-g-subagent", "stdout.jsonl"),
		filepath.Join(rc, "codex-a-multitool", "stdout.jsonl"),
		filepath.Join(rc, "codex-f-compaction", "stdout.jsonl"),
	}
	for _, pat := range []string{"claude-*/transcripts/claude/projects/*/*.jsonl", "codex-*/transcripts/*/sessions/*/*/*/*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(rc, pat))
		files = append(files, m...)
	}
	dir := t.TempDir()
	var want expectedUsage
	formats := map[string]bool{}
	for _, f := range files {
		code, _, stderr := run(t, dir, "import", f)
		if code != 0 {
			t.Fatalf("import %s: %s", f, stderr)
		}
		formats[strings.Fields(strings.SplitN(stderr, "(", 2)[1])[0]] = true
		e := sumFixture(t, f)
		want.in, want.out, want.cr, want.cw, want.reasoning = want.in+e.in, want.out+e.out, want.cr+e.cr, want.cw+e.cw, want.reasoning+e.reasoning
		want.cost += e.cost
	}
	for _, f := range []string{"claude-stream):", "claude-transcript):", "codex-exec):", "codex-rollout):"} {
		if !formats[f] {
			t.Errorf("no fixture of format %s among %v", f, formats)
		}
	}
	code, out, stderr := run(t, dir, "stats", "--json")
	if code != 0 {
		t.Fatalf("stats: %s", stderr)
	}
	var got []insight.Totals
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 {
		t.Fatalf("stats --json = %s (%v)", out, err)
	}
	g := got[0]
	if g.Input != want.in || g.Output != want.out || g.CacheRead != want.cr || g.CacheWrite != want.cw || g.Reasoning != want.reasoning {
		t.Errorf("tokens: got in %d out %d cr %d cw %d rs %d; want %+v", g.Input, g.Output, g.CacheRead, g.CacheWrite, g.Reasoning, want)
	}
	if math.Abs(g.CostUSD-want.cost) > 1e-9 || !g.CostEstimated {
		t.Errorf("cost %v (estimated %v), want %v", g.CostUSD, g.CostEstimated, want.cost)
	}
	if want.in == 0 || want.cost == 0 {
		t.Errorf("the fixtures carry no usage: %+v", want)
	}
	// The sum by model and by day agrees with the total.
	for _, by := range []string{"model", "day", "session", "worktree", "backend"} {
		_, out, _ := run(t, dir, "stats", "--json", "--by", by)
		var rows []insight.Totals
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		if by == "backend" {
			var keys []string
			for _, r := range rows {
				keys = append(keys, r.Key)
			}
			if !slices.Equal(keys, []string{"claude", "codex"}) {
				t.Errorf("--by backend keys %v, want claude and codex", keys)
			}
		}
		var in int64
		var cost float64
		for _, r := range rows {
			in += r.Input
			cost += r.CostUSD
		}
		if in != want.in || math.Abs(cost-want.cost) > 1e-9 {
			t.Errorf("--by %s sums to %d tokens, $%v", by, in, cost)
		}
	}
}

// craftedStream is a claude stream-json run with known files and refs.
const craftedStream = `{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","cwd":"/work/proj"}
{"type":"user","message":{"role":"user","content":"Fix issue #12 and see https://github.com/acme/app/pull/7 please"}}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/work/proj/src/a.go"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]}}
{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/work/proj/src/a.go","old_string":"a","new_string":"b"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}}
{"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"docs/new.md","content":"x"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"ok"}]}}
{"type":"assistant","message":{"id":"m4","role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Bash","input":{"command":"git checkout -b fix/issue-12 && git commit -am 'fix' && git push -u origin fix/issue-12"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","content":"[fix/issue-12 abc1234] fix\n 1 file changed"}]}}
{"type":"assistant","message":{"id":"m5","role":"assistant","content":[{"type":"tool_use","id":"t5","name":"Edit","input":{"file_path":"/work/proj/src/a.go","old_string":"b","new_string":"c"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t5","content":"failed","is_error":true}]}}
{"type":"assistant","message":{"id":"m6","role":"assistant","content":[{"type":"tool_use","id":"t6","name":"Bash","input":{"command":"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/b.go\n+package b\n*** Delete File: src/old.go\n*** End Patch\nEOF"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t6","content":"Done"}]}}
{"type":"assistant","message":{"id":"m7","role":"assistant","content":[{"type":"text","text":"Opened PR #8, see https://gitlab.com/grp/sub/proj/-/merge_requests/3."}]}}
{"type":"result","subtype":"success","is_error":false,"duration_ms":10,"session_id":"s1","total_cost_usd":0.5,"usage":{"input_tokens":1,"output_tokens":2}}
`

// TestFilesAndRefsOfCraftedTranscript: files and refs are exactly what the
// transcript holds, paths relative to the worktree, bare #N resolved
// against the worktree's remote.
func TestFilesAndRefsOfCraftedTranscript(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(src, []byte(strings.ReplaceAll(craftedStream, "/work/proj", dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	gitInit(t, dir, "git@github.com:acme/app.git")
	if code, _, stderr := run(t, dir, "import", src); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := run(t, dir, "files", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var files []insight.FileRow
	if err := json.Unmarshal([]byte(out), &files); err != nil {
		t.Fatal(err)
	}
	type fa struct {
		path, action string
		count        int64
	}
	var gotF []fa
	for _, f := range files {
		gotF = append(gotF, fa{f.Path, f.Action, f.Count})
	}
	sort.Slice(gotF, func(i, j int) bool { return gotF[i].path+gotF[i].action < gotF[j].path+gotF[j].action })
	wantF := []fa{{"docs/new.md", "write", 1}, {"src/a.go", "edit", 2}, {"src/a.go", "read", 1}, {"src/b.go", "create", 1}, {"src/old.go", "delete", 1}}
	if !reflect.DeepEqual(gotF, wantF) {
		t.Errorf("files = %+v\nwant %+v", gotF, wantF)
	}
	// --recent: only changes, the newest first (apply_patch's two files come last).
	code, out, stderr = run(t, dir, "files", "--recent", "3", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var recent []insight.FileRow
	if err := json.Unmarshal([]byte(out), &recent); err != nil {
		t.Fatal(err)
	}
	var gotRecent []fa
	for _, f := range recent {
		gotRecent = append(gotRecent, fa{f.Path, f.Action, f.Count})
	}
	if want := []fa{{"src/b.go", "create", 1}, {"src/old.go", "delete", 1}, {"src/a.go", "edit", 2}}; !reflect.DeepEqual(gotRecent, want) {
		t.Errorf("files --recent 3 = %+v\nwant %+v", gotRecent, want)
	}
	if code, _, stderr := run(t, dir, "files", "--recent", "-1"); code == 0 || !strings.Contains(stderr, "--recent") {
		t.Errorf("files --recent -1: exit %d, %q", code, stderr)
	}
	code, out, stderr = run(t, dir, "refs", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var refs []insight.RefRow
	if err := json.Unmarshal([]byte(out), &refs); err != nil {
		t.Fatal(err)
	}
	var gotR []insight.Ref
	for _, r := range refs {
		gotR = append(gotR, r.Ref)
	}
	wantR := []insight.Ref{
		{Kind: "pr", Value: "acme/app#7", URL: "https://github.com/acme/app/pull/7"},
		{Kind: "issue", Value: "acme/app#12", URL: "https://github.com/acme/app/issues/12"},
		{Kind: "branch", Value: "fix/issue-12"},
		{Kind: "commit", Value: "abc1234", URL: "https://github.com/acme/app/commit/abc1234"},
		{Kind: "pr", Value: "acme/app#8", URL: "https://github.com/acme/app/pull/8"},
		{Kind: "pr", Value: "grp/sub/proj#3", URL: "https://gitlab.com/grp/sub/proj/-/merge_requests/3"},
	}
	sortRefs := func(r []insight.Ref) {
		sort.Slice(r, func(i, j int) bool { return r[i].Kind+r[i].Value < r[j].Kind+r[j].Value })
	}
	sortRefs(gotR)
	sortRefs(wantR)
	if !reflect.DeepEqual(gotR, wantR) {
		t.Errorf("refs = %+v\nwant %+v", gotR, wantR)
	}
	// tools and their errors
	code, out, stderr = run(t, dir, "sql", "--json", "SELECT name, calls, errors FROM tools ORDER BY name")
	if code != 0 {
		t.Fatal(stderr)
	}
	if want := `{"columns":["name","calls","errors"],"rows":[["Bash",2,0],["Edit",2,1],["Read",1,0],["Write",1,0]],"truncated":false}`; compactJSON(t, out) != want {
		t.Errorf("tools = %s", out)
	}
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// gitInit makes dir a git repository with origin at remote.
func gitInit(t *testing.T, dir, remote string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = " + remote + "\n"
	for name, body := range map[string]string{"config": cfg, "HEAD": "ref: refs/heads/main\n"} {
		if err := os.WriteFile(filepath.Join(dir, ".git", name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"objects", "refs/heads"} {
		if err := os.MkdirAll(filepath.Join(dir, ".git", d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSQLIsReadOnly: every mutation attempt is refused with a one-line
// error and exit 1, and the store and the index stay byte-identical.
func TestSQLIsReadOnly(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(src, []byte(craftedStream), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, dir, "import", src); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := run(t, dir, "stats"); code != 0 { // builds the index
		t.Fatal(stderr)
	}
	storePath := filepath.Join(dir, ".azureal", "sessions.azs")
	indexPath, err := insight.IndexPath(storePath)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.db")
	attempts := []string{
		"DELETE FROM sessions", "DELETE FROM s0.sessions", "DELETE FROM x0.usage", "UPDATE x0.usage SET cost_usd = 0",
		"INSERT INTO s0.sessions(worktree) VALUES ('x')", "INSERT INTO x0.meta VALUES ('a', 'b')", "DROP TABLE x0.files",
		"DROP VIEW sessions", "CREATE TABLE t(x)", "CREATE TEMP TABLE t(x)", "CREATE TEMP VIEW v AS SELECT 1",
		"CREATE INDEX x0.i ON files(path)", "CREATE TRIGGER x0.tr AFTER INSERT ON files BEGIN SELECT 1; END",
		"ATTACH DATABASE '" + other + "' AS o", "DETACH DATABASE s0", "PRAGMA query_only = 0", "PRAGMA x0.journal_mode = DELETE",
		"PRAGMA s0.user_version = 7", "PRAGMA writable_schema = 1", "PRAGMA foreign_keys = OFF", "VACUUM", "VACUUM x0",
		"VACUUM INTO '" + other + "'", "SELECT load_extension('libx')", "REINDEX", "ANALYZE", "ALTER TABLE x0.files ADD COLUMN y",
		"BEGIN IMMEDIATE", "SAVEPOINT a", "REPLACE INTO x0.meta VALUES ('hi', '0')",
		"WITH a AS (SELECT 1) DELETE FROM x0.refs", "CREATE VIRTUAL TABLE temp.f USING fts5(x)",
		"INSERT INTO x0.tools SELECT * FROM x0.tools", "UPDATE s0.events SET kind = 'x'",
	}
	before := map[string][32]byte{storePath: fileHash(t, storePath), indexPath: fileHash(t, indexPath)}
	for _, q := range attempts {
		code, out, stderr := run(t, dir, "sql", q)
		if code != 1 || out != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stderr == "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", q, code, out, stderr)
		}
		// Refused by the authorizer (or by SQLite before it: a view is not
		// writable), not merely by a read-only file.
		if !strings.Contains(stderr, "read-only (") && !strings.Contains(stderr, "not authorized") && !strings.Contains(stderr, "is a view") {
			t.Errorf("%s: not refused by the authorizer: %s", q, stderr)
		}
	}
	if len(attempts) < 30 {
		t.Errorf("only %d attempts", len(attempts))
	}
	for p, h := range before {
		if fileHash(t, p) != h {
			t.Errorf("%s changed", p)
		}
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("%s was created", other)
	}
	// A good query answers, and the limit says it truncated.
	code, out, stderr := run(t, dir, "sql", "--json", "--limit", "2", "SELECT seq, json_extract(json, '$.ToolCall.tool_name') FROM events WHERE kind = 'ToolCall' ORDER BY seq")
	if code != 0 || !strings.Contains(out, `"truncated": true`) || !strings.Contains(out, `"Read"`) {
		t.Errorf("good query: %d %s %s", code, out, stderr)
	}
}
