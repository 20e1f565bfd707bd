package summary

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

// summaryFixture is one session of a fixture store. previous and after
// are its latest compaction's summary and the events after it.
type summaryFixture struct {
	name     string
	events   []codec.Event
	previous *string
	after    []codec.Event
}

// summaryFixtures loads every session of the .azs fixture stores, skipping
// tb when the shared fixtures are not checked out next to the module.
func summaryFixtures(tb testing.TB) []summaryFixture {
	tb.Helper()
	root := fixtures.Dir(tb)
	var paths []string
	for _, dir := range []string{"reference", "azs"} {
		m, err := filepath.Glob(filepath.Join(root, dir, "*.azs"))
		if err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		fixtures.Missing(tb, fmt.Errorf("no .azs files under %s", root))
	}
	var out []summaryFixture
	for _, p := range paths {
		out = append(out, summaryStoreFixtures(tb, p)...)
	}
	return out
}

func summaryStoreFixtures(tb testing.TB, path string) []summaryFixture {
	tb.Helper()
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		tb.Fatalf("OpenReadOnly(%s): %v", path, err)
	}
	defer st.Close() //nolint:errcheck // read-only store
	sessions, err := st.Sessions().List(ctx, "")
	if err != nil {
		tb.Fatalf("ListSessions(%s): %v", path, err)
	}
	var out []summaryFixture
	for _, s := range sessions {
		stored, err := st.Events().All(ctx, s.ID)
		if err != nil {
			tb.Fatalf("LoadEvents(%s, %d): %v", path, s.ID, err)
		}
		c, err := st.Compactions().Latest(ctx, s.ID)
		if err != nil {
			tb.Fatalf("LatestCompaction(%s, %d): %v", path, s.ID, err)
		}
		f := summaryFixture{name: filepath.Base(path) + "#" + s.DisplayName()}
		for _, se := range stored {
			f.events = append(f.events, se.Event)
			if c != nil && se.Seq > c.AfterSeq {
				f.after = append(f.after, se.Event)
			}
		}
		if c != nil {
			f.previous = &c.Summary
		}
		out = append(out, f)
	}
	return out
}

// summaryMaterial counts the runes Summarize draws on: user and assistant
// text, the previous summary, and what the tool calls work on.
func summaryMaterial(previous *string, events []codec.Event) int {
	n := 0
	if previous != nil {
		n += utf8.RuneCountInString(*previous)
	}
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case codec.KindUserMessage:
			n += utf8.RuneCountInString(e.Content)
		case codec.KindAssistantText:
			n += utf8.RuneCountInString(e.Text)
		case codec.KindToolCall:
			n += utf8.RuneCountInString(codec.ToolKeyParam(e.ToolName, e.Input))
		}
	}
	return n
}

// summaryEnoughMaterial is the material from which a summary must reach
// MinChars: twice the floor, since tool output, code and narration
// are not summary material.
const summaryEnoughMaterial = 2 * MinChars

// checkSummaryInvariants checks what holds for every summary: valid UTF-8, at most
// MaxChars, no tags, non-empty for non-empty input, the same text
// when computed again, and at least MinChars when the input has
// enough material.
func checkSummaryInvariants(t *testing.T, name string, previous *string, events []codec.Event) string {
	t.Helper()
	s := Summarize(previous, events)
	n := utf8.RuneCountInString(s)
	if !utf8.ValidString(s) {
		t.Errorf("%s: summary is not valid UTF-8", name)
	}
	if n > MaxChars {
		t.Errorf("%s: summary has %d characters, want at most %d", name, n, MaxChars)
	}
	if m := summaryMaterial(previous, events); m >= summaryEnoughMaterial && n < MinChars {
		t.Errorf("%s: summary has %d characters from %d of material, want at least %d", name, n, m, MinChars)
	}
	if s == "" && (len(events) > 0 || previous != nil && strings.TrimSpace(*previous) != "") {
		t.Errorf("%s: empty summary of non-empty input", name)
	}
	for _, tag := range summaryTags {
		if strings.Contains(s, tag) {
			t.Errorf("%s: summary contains %s", name, tag)
		}
	}
	if again := Summarize(previous, events); again != s {
		t.Errorf("%s: Summarize is not deterministic:\n%s\n----\n%s", name, s, again)
	}
	return s
}

func TestSummarizeFixtures(t *testing.T) {
	checked := 0
	for _, f := range summaryFixtures(t) {
		checkSummaryInvariants(t, f.name, nil, f.events)
		if summaryMaterial(nil, f.events) >= summaryEnoughMaterial {
			checked++
		}
		if f.previous == nil {
			continue
		}
		s := checkSummaryInvariants(t, f.name+" after its compaction", f.previous, f.after)
		head := strings.Join(strings.Fields(*f.previous)[:3], " ")
		if !strings.Contains(s, head) {
			t.Errorf("%s: summary does not carry the previous summary's %q:\n%s", f.name, head, s)
		}
	}
	if checked < 20 {
		t.Errorf("only %d fixture sessions have enough material to check the length floor", checked)
	}
}

// summaryRichSession is a long session with every kind of material.
func summaryRichSession(turns int) []codec.Event {
	var evs []codec.Event
	for i := 1; i <= turns; i++ {
		path := fmt.Sprintf("/repo/pkg/file%02d.go", i)
		evs = append(evs,
			codec.UserMessage(fmt.Sprintf("Request %d: please make the parser handle case %d, and keep the public API unchanged so callers do not break.", i, i)),
			codec.AssistantText(fmt.Sprintf("Let me read the file. I decided to split case %d into its own function because the switch had grown too long. The root cause of bug %d was an off-by-one in the scanner.", i, i)),
			summaryCall(fmt.Sprintf("e%d", i), "Edit", path, `{"file_path":"`+path+`","old_string":"a","new_string":"b"}`),
			codec.ToolResult(fmt.Sprintf("e%d", i), "Edit", &path, "ok", false),
			summaryCall(fmt.Sprintf("b%d", i), "Bash", "", fmt.Sprintf(`{"command":"go test ./pkg/... -run Case%d"}`, i)),
			codec.ToolResult(fmt.Sprintf("b%d", i), "Bash", nil, "FAIL\nexit status 1", i%5 == 0),
			codec.Complete(true, 4200, 0.01),
		)
	}
	return evs
}

func summaryJSON(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

func summaryCall(id, tool, path, input string) codec.Event {
	var fp *string
	if path != "" {
		fp = &path
	}
	return codec.ToolCall(id, tool, fp, json.RawMessage(input))
}

func TestSummarizeLength(t *testing.T) {
	long := strings.Repeat("The cache was rebuilt because the index went stale. ", 200)
	thin := []codec.Event{ // few items, each long: excerpts widen to reach the floor
		codec.UserMessage(strings.Repeat("Please explain how the session store decides when to compact the history. ", 20)),
		codec.AssistantText(strings.Repeat("The store counts the characters since the last compaction and compares them with the threshold. ", 20)),
	}
	tests := []struct {
		name     string
		previous *string
		events   []codec.Event
		min, max int
	}{
		{"rich", nil, summaryRichSession(60), MinChars, MaxChars},
		{"rich with long previous", &long, summaryRichSession(60), MinChars, MaxChars},
		{"thin", nil, thin, MinChars, MaxChars},
		{"only a long previous", &long, nil, MinChars, MaxChars},
		{"tiny", nil, []codec.Event{codec.UserMessage("fix it"), codec.AssistantText("Fixed.")}, 1, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := checkSummaryInvariants(t, tt.name, tt.previous, tt.events)
			if n := utf8.RuneCountInString(s); n < tt.min || n > tt.max {
				t.Errorf("Summarize has %d characters, want %d–%d:\n%s", n, tt.min, tt.max, s)
			}
		})
	}
}

func TestSummarizeEarlierSummaryIsBounded(t *testing.T) {
	previous := "ZEBRA-7 was chosen as the migration plan. " + strings.Repeat("Older detail that matters less. ", 300)
	s := Summarize(&previous, summaryRichSession(60))
	earlier := summarySection(s, "Earlier summary")
	if !strings.HasPrefix(earlier, "ZEBRA-7 was chosen as the migration plan.") {
		t.Errorf("Earlier summary = %q, want the head of the previous summary", earlier)
	}
	if n := utf8.RuneCountInString(earlier); n > summaryTarget*30/100 {
		t.Errorf("Earlier summary has %d characters, want at most %d", n, summaryTarget*30/100)
	}
	if summarySection(s, "User requests") == "" || summarySection(s, "Files touched") == "" {
		t.Errorf("the previous summary crowded out the new material:\n%s", s)
	}
}

func TestSummarizeEmpty(t *testing.T) {
	empty := ""
	for _, tt := range []struct {
		name     string
		previous *string
		events   []codec.Event
	}{
		{"nil", nil, nil},
		{"no events", nil, []codec.Event{}},
		{"empty previous", &empty, nil},
	} {
		if s := Summarize(tt.previous, tt.events); s != "" {
			t.Errorf("Summarize(%s) = %q, want \"\"", tt.name, s)
		}
	}
	// Events with nothing to extract still get a summary.
	s := Summarize(nil, []codec.Event{codec.Init("/w", "opus"), codec.Hook("SessionStart", "ok")})
	if want := "2 events (1 Hook, 1 Init)"; !strings.Contains(s, want) {
		t.Errorf("Summarize(Init, Hook) = %q, want it to contain %q", s, want)
	}
}

func TestSummarizeStripsTags(t *testing.T) {
	open, closeTag := codec.ContextOpenTag, codec.ContextCloseTag
	ac, acClose := codec.AutoContinueOpenTag, codec.AutoContinueCloseTag
	nested := "<azureal-" + open + "session-context>" // removing the inner tag forms another
	previous := "Earlier work " + open + " on the parser " + closeTag + " and " + nested + "."
	events := []codec.Event{
		codec.UserMessage(open + "\n## User\nold\n" + closeTag + "\n\nreal prompt mentioning " + closeTag + " twice"),
		codec.UserMessage("please print " + ac + " and " + acClose + " literally, " + nested),
		codec.AssistantText("I decided to escape " + open + " because the tag " + closeTag + " broke the prompt."),
		codec.AssistantText("Error: " + nested + " failed"),
		summaryCall("c1", "Bash", "", `{"command":"echo '`+closeTag+`' && grep -r '`+ac+`' ."}`),
		codec.ToolResult("c1", "Bash", nil, open+" boom "+closeTag, true),
		summaryCall("c2", "Write", "/tmp/"+open+".txt", `{"file_path":"/tmp/x.txt"}`),
		codec.Plan(open, closeTag+" step one"),
		codec.AssistantText("Done: " + acClose),
		codec.Complete(false, 10, 0),
	}
	s := checkSummaryInvariants(t, "tagged input", &previous, events)
	for _, want := range []string{"real prompt mentioning twice", "I decided to escape because the tag broke", "echo", "Earlier work on the parser"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lost %q along with the tags:\n%s", want, s)
		}
	}
	if strings.Contains(s, "azureal-") {
		t.Errorf("summary keeps pieces of tags:\n%s", s)
	}
}

// summarySection returns the body of the section under heading in s, ""
// when s has no such section.
func summarySection(s, heading string) string {
	for _, block := range strings.Split(s, "\n\n") {
		if h, body, ok := strings.Cut(block, "\n"); ok && h == heading {
			return body
		}
	}
	return ""
}

func TestSummarizeSections(t *testing.T) {
	longRequest := "Please rewrite the importer so that it streams rows. " + strings.Repeat("It must also keep memory flat while reading. ", 100)
	patch := "*** Begin Patch\n*** Add File: src/new.rs\n+x\n*** Update File: src/lib.rs\n@@\n*** Delete File: src/old.rs\n*** End Patch"
	tests := []struct {
		name    string
		events  []codec.Event
		heading string
		want    []string // in this order
		absent  []string // from the section
		rich    bool     // after a long session, so that nothing is widened
	}{{
		name: "requests newest last, deduplicated and cut",
		events: []codec.Event{
			codec.UserMessage("add a flag"), codec.UserMessage(longRequest),
			codec.UserMessage("add a flag"), codec.UserMessage("   "),
		},
		heading: "User requests",
		want:    []string{"- Please rewrite the importer", "…", "- add a flag"},
	}, {
		name: "Codex context is not a request",
		events: []codec.Event{
			codec.UserMessage("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
			codec.UserMessage("# Context from my IDE setup:\n\n## Open tabs:\n- a.go\n\n## My request for Codex:\nrename the flag"),
		},
		heading: "User requests",
		want:    []string{"- rename the flag"},
		absent:  []string{"environment_context", "Open tabs"},
	}, {
		name: "answers to questions are requests",
		events: []codec.Event{
			summaryCall("q", "AskUserQuestion", "", `{}`),
			codec.ToolResult("q", "AskUserQuestion", nil, `User has answered your questions: "Which database?"="SQLite". You can now continue.`, false),
		},
		heading: "User requests",
		want:    []string{`- Answered: "Which database?"="SQLite".`},
	}, {
		name: "decisions in time order, narration left out",
		events: []codec.Event{
			codec.AssistantText("Let me read the parser first. I decided to keep the old API because two services use it."),
			codec.Plan("Parser plan", "# Parser plan\n1. Split the lexer\n2. Add fuzzing"),
			codec.AssistantText("The root cause was a missing bounds check in the lexer. The weather is nice today, by the way."),
			codec.AssistantText("I decided to keep the old API because two services use it."),
			codec.AssistantText("All done."),
		},
		heading: "Decisions and findings",
		want: []string{"- Plan \"Parser plan\": Split the lexer; Add fuzzing.",
			"- The root cause was a missing bounds check in the lexer.",
			"- I decided to keep the old API because two services use it."},
		absent: []string{"Let me read", "weather"},
		rich:   true,
	}, {
		name: "files with their operations, changed ones first",
		events: []codec.Event{
			summaryCall("r1", "Read", "/w/readme.md", `{"file_path":"/w/readme.md"}`),
			summaryCall("r2", "Read", "/w/main.go", `{"file_path":"/w/main.go"}`),
			summaryCall("e1", "Edit", "/w/main.go", `{"file_path":"/w/main.go","old_string":"a","new_string":"b"}`),
			summaryCall("e2", "MultiEdit", "/w/main.go", `{"file_path":"/w/main.go"}`),
			summaryCall("w1", "Write", "/w/new.go", `{"file_path":"/w/new.go","_lines":3}`),
			summaryCall("w2", "Write", "/w/denied.go", `{"file_path":"/w/denied.go"}`),
			codec.ToolResult("w2", "Write", nil, "<tool_use_error>File has not been read yet.</tool_use_error>", true),
			summaryCall("p1", "Edit", "src/new.rs", `{"patch":`+summaryJSON(patch)+`}`),
			summaryCall("k1", "Edit", "/w/gone.txt", `{"file_path":"/w/gone.txt","kind":"delete"}`),
			summaryCall("b1", "Bash", "", `{"command":"rm -f /w/tmp.log"}`),
		},
		heading: "Files touched",
		want: []string{"- /w/main.go (edited 2 times, read)", "- /w/tmp.log (deleted)", "- /w/gone.txt (deleted)",
			"- src/lib.rs (edited)", "- src/new.rs (created)", "- src/old.rs (deleted)", "- /w/new.go (created)", "- /w/readme.md (read)"},
		absent: []string{"denied.go"},
	}, {
		name: "apply_patch run through the shell",
		events: []codec.Event{
			summaryCall("s1", "shell", "", `{"command":["bash","-lc",`+summaryJSON("apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Move to: src/b.rs\n*** End Patch\nPATCH")+`]}`),
		},
		heading: "Files touched",
		want:    []string{"- src/a.rs (edited)", "- src/b.rs (created)"},
	}, {
		name: "commands latest first, one line each",
		events: []codec.Event{
			summaryCall("1", "Bash", "", `{"command":"go build ./..."}`),
			summaryCall("2", "Bash", "", `{"command":"go test ./...\necho done"}`),
			summaryCall("3", "shell", "", `{"command":["bash","-lc","rg TODO"]}`),
			summaryCall("4", "Bash", "", `{"command":"git commit -m \"$(cat <<'EOF'\nFix the lexer bounds check\n\nDetails.\nEOF\n)\""}`),
			summaryCall("5", "Bash", "", `{"command":"go build ./..."}`),
			summaryCall("6", "Bash", "", `{"command":"poll session 42"}`),
		},
		heading: "Commands run",
		want: []string{"- go build ./...", `- git commit -m "$(cat <<'EOF' Fix the lexer bounds check …`,
			"- rg TODO", "- go test ./... …"},
		absent: []string{"poll session", "echo done"},
	}, {
		name: "errors with what failed",
		events: []codec.Event{
			summaryCall("b", "Bash", "", `{"command":"make itest"}`),
			codec.ToolResult("b", "Bash", nil, "Exit code: 2\nmake: *** [itest] Error 2", true),
			codec.AssistantText("Error: rate limited\nretry later"),
			summaryCall("r", "Read", "/w/x.go", `{"file_path":"/w/x.go"}`),
			codec.ToolResult("r", "Read", nil, "fine", false),
		},
		heading: "Errors",
		want:    []string{"- Error: rate limited", "- Bash (make itest): Exit code: 2"},
		absent:  []string{"retry later", "fine"},
	}, {
		name: "current state: last message and last completion",
		events: []codec.Event{
			codec.AssistantText("First answer."),
			codec.Complete(true, 1000, 0),
			codec.AssistantText("The migration is half done; the down step is still missing."),
			codec.Complete(false, 2500, 0),
		},
		heading: "Current state",
		want: []string{"The assistant's last message was: The migration is half done; the down step is still missing.",
			"The last turn ended in failure after 2.5 s."},
		absent: []string{"First answer"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := tt.events
			if tt.rich {
				events = append(summaryRichSession(30), events...)
			}
			s := checkSummaryInvariants(t, tt.name, nil, events)
			body := summarySection(s, tt.heading)
			rest := body
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("section %q = %q, want %q (in order)\nsummary:\n%s", tt.heading, body, w, s)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tt.absent {
				if strings.Contains(body, a) {
					t.Errorf("section %q contains %q:\n%s", tt.heading, a, s)
				}
			}
		})
	}
}

func TestSummarizeSectionOrder(t *testing.T) {
	previous := "An earlier summary."
	s := Summarize(&previous, summaryRichSession(8))
	last := -1
	for _, h := range []string{"Earlier summary", "User requests", "Decisions and findings",
		"Files touched", "Commands run", "Errors", "Current state"} {
		i := strings.Index(s, "\n"+h+"\n")
		if h == "Earlier summary" && strings.HasPrefix(s, h+"\n") {
			i = 0
		}
		if i <= last {
			t.Fatalf("heading %q at %d, after %d; summary:\n%s", h, i, last, s)
		}
		last = i
	}
}

func TestSummarizeTruncateText(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"one two three four five", 12, "one two…"},
		{"First part here. Second part is longer.", 22, "First part here. …"},
		{"First part here. Second part is longer.", 30, "First part here. Second part…"},
		{"abcdefghijklmnop", 6, "abcde…"},
		{"héllo wörld ünïcode", 13, "héllo wörld…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	}
	for _, tt := range tests {
		got := sumTruncate(tt.in, tt.max)
		if got != tt.want {
			t.Errorf("sumTruncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > tt.max {
			t.Errorf("sumTruncate(%q, %d) has %d runes", tt.in, tt.max, n)
		}
	}
}

func FuzzSummarize(f *testing.F) {
	f.Add("fix the parser", "I decided to split it because it was long.", "Bash", `{"command":"go test ./..."}`, "prev")
	f.Add(codec.ContextOpenTag+"x"+codec.ContextCloseTag+"y", "Error: "+codec.AutoContinueOpenTag, "Edit",
		`{"patch":"*** Update File: a.go"}`, "")
	f.Add("\xff\xfe broken", "e.g. this. i.e. that.", "Write", `"not an object"`, strings.Repeat("long ", 2000))
	f.Fuzz(func(t *testing.T, user, text, tool, input, previous string) {
		in := json.RawMessage(input)
		if !json.Valid(in) {
			in = nil
		}
		events := []codec.Event{
			codec.UserMessage(user), codec.AssistantText(text),
			codec.ToolCall("id", tool, &user, in), codec.ToolResult("id", tool, nil, text, true),
			codec.Complete(true, 1, 0),
		}
		checkSummaryInvariants(t, "fuzz", &previous, events)
	})
}
