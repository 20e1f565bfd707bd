package export

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

// secretSource has a secret in every kind of field an export contains.
func secretSource() Source {
	path := "/home/u/" + githubToken + "/notes.txt"
	evs := []codec.Event{
		codec.UserMessage("deploy with " + awsKeyID + " please"),
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"curl -H \"Authorization: Bearer `+bearerToken+`\" https://api"}`)),
		codec.ToolResult("t1", "Bash", nil, "aws_access_key_id = "+awsKeyID+"\naws_secret_access_key = "+awsSecret+"\n", false),
		codec.ToolCall("t2", "Read", &path, json.RawMessage(`{"file_path":"`+path+`"}`)),
		codec.ToolCall("t3", "Edit", nil, json.RawMessage(`{"file_path":"a.env","old_string":"KEY=","new_string":"STRIPE=`+stripeKey+`"}`)),
		codec.AssistantText("Connected to postgres://app:" + dbPassword + "@db/app"),
	}
	stored := make([]store.StoredEvent, len(evs))
	for i, e := range evs {
		stored[i] = store.StoredEvent{ID: int64(i + 1), Seq: int64(i + 1), Kind: e.Kind, Event: e}
	}
	s := store.Session{ID: 7, Name: "rotate " + npmToken, Worktree: "main", Created: "2026-05-02 09:00:00"}
	comps := []store.Compaction{{ID: 1, SessionID: 7, AfterSeq: 6, Summary: "The key was " + openAILegacy + "."}}
	return NewSource(s, stored, comps)
}

func TestScanFindsEveryField(t *testing.T) {
	src := secretSource()
	rep := Scan(src)
	got := map[string]string{}
	for _, f := range rep.Findings {
		var where []string
		for _, l := range f.Locations {
			where = append(where, l.String())
		}
		got[f.Rule+" "+f.Preview] = strings.Join(where, "; ")
		if f.Count != len(f.Locations) {
			t.Errorf("%s: count %d, %d locations", f.Rule, f.Count, len(f.Locations))
		}
	}
	want := map[string]string{
		"npm-token " + preview("", npmToken):               "session name",
		"aws-access-key-id " + preview("", awsKeyID):       "#1 · prompt; #3 · Bash result",
		"authorization-header " + preview("", bearerToken): "#2 · Bash command",
		"aws-secret-access-key " + preview("", awsSecret):  "#3 · Bash result, line 2",
		"github-token " + preview("", githubToken):         "#4 · Read file path; #4 · Read file_path",
		"stripe-secret-key " + preview("", stripeKey):      "#5 · Edit new_string",
		"connection-string " + preview("", dbPassword):     "#6 · assistant text",
		"openai-api-key " + preview("", openAILegacy):      "#6 · compaction summary",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %v\nwant %v", got, want)
	}
	if rep.Occurrences() != 10 {
		t.Errorf("Occurrences() = %d, want 10", rep.Occurrences())
	}
	if rep.Findings[0].Rule != "npm-token" {
		t.Errorf("findings not in export order: first is %s", rep.Findings[0].Rule)
	}
}

// A secret found by a rule in one place is found wherever else it occurs.
func TestScanEcho(t *testing.T) {
	src := secretSource()
	src.Events = append(src.Events, store.StoredEvent{Seq: 7, Kind: codec.KindUserMessage,
		Event: codec.UserMessage("is " + dbPassword + " still valid?")})
	rep := Scan(src)
	for _, f := range rep.Findings {
		if f.Rule == "connection-string" && (f.Count != 2 || f.Locations[1].Seq != 7) {
			t.Errorf("password echo: %+v", f)
		}
	}
}

func TestRedactAllFormats(t *testing.T) {
	src := secretSource()
	rep := Scan(src)
	red := Redact(src, rep)
	if red.Redactions != rep.Occurrences() {
		t.Errorf("Redactions = %d, want %d", red.Redactions, rep.Occurrences())
	}
	secrets := []string{npmToken, awsKeyID, bearerToken, awsSecret, githubToken, stripeKey, dbPassword, openAILegacy}
	for _, f := range Formats {
		doc := render(t, red, f)
		for _, s := range secrets {
			if strings.Contains(doc, s) {
				t.Errorf("%s export still contains %.8s…", f, s)
			}
		}
		plain := doc
		if f == Markdown {
			plain = strings.ReplaceAll(doc, `\`, "") // names are escaped: \[REDACTED:…\]
		}
		for _, rule := range []string{"aws-access-key-id", "github-token", "connection-string", "npm-token"} {
			if !strings.Contains(plain, RedactedMark(rule)) {
				t.Errorf("%s export lacks %s", f, RedactedMark(rule))
			}
		}
		switch f {
		case JSON:
			d := decodeJSONExport(t, doc, red)
			if d.Redactions != red.Redactions {
				t.Errorf("JSON redactions = %d", d.Redactions)
			}
		case HTML:
			checkHTML(t, doc)
		}
	}
	// The connection string keeps everything but its password.
	if got := red.Events[5].Event.Text; got != "Connected to postgres://app:[REDACTED:connection-string]@db/app" {
		t.Errorf("redacted text = %q", got)
	}
	// The input keeps its shape: the same keys, valid JSON.
	var in map[string]string
	if err := json.Unmarshal(red.Events[4].Event.Input, &in); err != nil || in["new_string"] != "STRIPE=[REDACTED:stripe-secret-key]" || in["old_string"] != "KEY=" {
		t.Errorf("redacted input = %s (%v)", red.Events[4].Event.Input, err)
	}
	// src itself is untouched.
	if !strings.Contains(src.Events[0].Event.Content, awsKeyID) || !strings.Contains(src.Session.Name, npmToken) ||
		!strings.Contains(string(src.Events[4].Event.Input), stripeKey) || !strings.Contains(*src.Events[3].Event.FilePath, githubToken) {
		t.Error("Redact modified its input")
	}
	if again := Scan(red); len(again.Findings) != 0 {
		t.Errorf("redacted source still has findings: %+v", again.Findings)
	}
}

func TestRedactNothingFound(t *testing.T) {
	src := synthSource()
	rep := Scan(src)
	if len(rep.Findings) != 0 {
		t.Fatalf("synthetic session has findings: %+v", rep.Findings)
	}
	if red := Redact(src, rep); red.Redactions != 0 || render(t, red, JSON) != render(t, src, JSON) {
		t.Error("Redact without findings changed the export")
	}
}

// The scan finds nothing in the real transcripts of the shared fixtures:
// code, logs and prose full of "token", "password" and "key" are not
// secrets.
func TestNoFalsePositivesInFixtures(t *testing.T) {
	var files []string
	for _, pattern := range []string{filepath.Join("transcripts", "*.json*"), filepath.Join("real-cli", "*", "stdout.jsonl")} {
		m, _ := filepath.Glob(filepath.Join(sharedDir, pattern))
		files = append(files, m...)
	}
	if len(files) == 0 {
		fixtures.Missing(t, fmt.Errorf("no transcripts or real-cli/*/stdout.jsonl under %s", sharedDir))
	}
	var scanned int64
	for _, f := range files {
		events, _, _, err := agents.LoadTranscript(f, parse.FormatAuto, parse.Options{})
		if err != nil {
			continue // not every fixture is a transcript Lazuli reads
		}
		stored := make([]store.StoredEvent, len(events))
		for i, e := range events {
			stored[i] = store.StoredEvent{Seq: int64(i + 1), Kind: e.Kind, Event: e}
		}
		rep := Scan(NewSource(store.Session{ID: 1, Name: filepath.Base(f)}, stored, nil))
		scanned += rep.Bytes
		for _, fd := range rep.Findings {
			t.Errorf("%s: %s %s at %s", filepath.Base(f), fd.Rule, fd.Preview, fd.Locations[0])
		}
	}
	t.Logf("scanned %d bytes of %d transcripts", scanned, len(files))
}

// Scan and Redact only read their Source: afterwards it equals a fresh
// copy field for field (the events, their thinking, the full texts, the
// compactions), and, run under -race, a reader of the same events (the
// window, the store's cache) sees no write, not even of the same values.
func TestScanRedactDoNotWriteSource(t *testing.T) {
	source := func() Source {
		s := secretSource()
		s.Full = map[int64]string{3: "the whole output: aws_secret_access_key = " + awsSecret}
		s.Events[5].Thinking = []string{"the password is " + dbPassword}
		return s
	}
	src := source()
	done := make(chan struct{})
	go func() {
		defer close(done)
		n := 0
		for range 200 {
			for i := range src.Events {
				n += len(src.Events[i].Event.Content) + len(src.Events[i].Event.Input)
			}
			for i := range src.Compactions {
				n += len(src.Compactions[i].Summary)
			}
		}
		_ = n
	}()
	redactions := 0
	for range 20 {
		redactions = Redact(src, Scan(src)).Redactions
	}
	<-done
	if redactions == 0 {
		t.Fatalf("Redact(src, Scan(src)).Redactions = 0, want the secrets of src replaced")
	}
	if want := source(); !reflect.DeepEqual(src, want) {
		t.Errorf("Scan and Redact changed their source:\n got %+v\nwant %+v", src, want)
	}
}

// TestRedactText: every secret of a text is replaced by its mark, the
// same value again where no rule would see it (after a plain word), and a
// text without secrets comes back unchanged.
func TestRedactText(t *testing.T) {
	in := "aws_secret_access_key = " + awsSecret + "\ntoken " + githubToken + "\nagain: " + githubToken + " and " + awsSecret
	out, n := RedactText(in)
	for _, secret := range []string{awsSecret, githubToken} {
		if strings.Contains(out, secret) {
			t.Errorf("RedactText() kept %q:\n%s", secret, out)
		}
	}
	if n != 4 || !strings.Contains(out, "[REDACTED:") {
		t.Errorf("RedactText() = %q, %d replacements; want 4", out, n)
	}
	if out, n := RedactText("nothing secret here, only words"); n != 0 || out != "nothing secret here, only words" {
		t.Errorf("RedactText(clean) = %q, %d", out, n)
	}
}
