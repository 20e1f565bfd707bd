package genstore

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// claudeTool returns one Claude Code tool call and its result, picked with
// the frequencies real sessions show (reads, shell commands and edits
// first).
func (s *sessionGen) claudeTool() []codec.Event {
	g := s.g
	id := "toolu_01" + g.alnum(22)
	switch x := g.intn(100); {
	case x < 24:
		return s.read(id)
	case x < 48:
		return s.bash(id)
	case x < 64:
		return s.edit(id)
	case x < 72:
		return s.grep(id)
	case x < 76:
		return s.glob(id)
	case x < 80:
		return s.write(id)
	case x < 83:
		return s.multiEdit(id)
	case x < 90:
		return s.todoWrite(id)
	case x < 92:
		return s.webFetch(id)
	case x < 94:
		return s.webSearch(id)
	case x < 97:
		return s.task(id)
	}
	return s.mcp(id)
}

// pair returns a call and its result.
func pair(id, tool string, filePath *string, input []byte, result string, isError bool) []codec.Event {
	var resultPath *string
	if filePath != nil {
		path := *filePath
		resultPath = &path
	}
	return []codec.Event{
		codec.ToolCall(id, tool, filePath, json.RawMessage(input)),
		codec.ToolResult(id, tool, resultPath, result, isError),
	}
}

// numbered returns code as Claude's Read shows it: "     1→line".
func numbered(code string, first int) string {
	var b strings.Builder
	n := first
	for line := range strings.SplitSeq(strings.TrimRight(code, "\n"), "\n") {
		ln := itoa(n)
		b.WriteString(strings.Repeat(" ", max(0, 6-len(ln))) + ln + "→" + line + "\n")
		n++
	}
	return b.String()
}

func (s *sessionGen) read(id string) []codec.Event {
	g, p := s.g, s.p
	rel := p.file(g)
	abs := p.abs(rel)
	in := (&jsonObject{}).str("file_path", abs)
	if g.chance(0.05) {
		return pair(id, "Read", &abs, in.bytes(), "<tool_use_error>File does not exist.</tool_use_error>", true)
	}
	first := 1
	if g.chance(0.3) {
		first = g.between(1, 400)
		in.num("offset", first).num("limit", g.pick2(100, 200))
	}
	code := p.sourceFile(g, rel, g.sized(110, 0.7, 8, 900))
	return pair(id, "Read", &abs, in.bytes(), numbered(code, first), false)
}

// pick2 returns a or b.
func (g *textGen) pick2(a, b int) int {
	if g.chance(0.5) {
		return a
	}
	return b
}

func (s *sessionGen) bash(id string) []codec.Event {
	g := s.g
	run := s.p.shell(g)
	in := (&jsonObject{}).str("command", run.command).str("description", run.description)
	if g.chance(0.15) {
		in.num("timeout", g.pick2(120000, 600000))
	}
	out := s.maybeNeedle(run.output, 0.3)
	if run.failed {
		out = "Exit code " + g.num(1, 2) + "\n" + out
	}
	return pair(id, "Bash", nil, in.bytes(), out, run.failed)
}

// editPair returns an old and a new version of a piece of code: the new one
// keeps most lines, rewrites some and adds a few.
func (s *sessionGen) editPair() (string, string) {
	g, p := s.g, s.p
	old := p.code(g, g.sized(s.size.editLines, 1.0, 1, 500))
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimRight(old, "\n"), "\n") {
		switch x := g.intn(100); {
		case x < 12:
			b.WriteString(strings.TrimRight(p.code(g, 1), "\n") + "\n")
		case x < 18:
			b.WriteString(line + "\n" + strings.TrimRight(p.code(g, g.between(1, 4)), "\n") + "\n")
		case x < 22:
		default:
			b.WriteString(line + "\n")
		}
	}
	return strings.TrimRight(old, "\n"), strings.TrimRight(b.String(), "\n")
}

func (s *sessionGen) edit(id string) []codec.Event {
	g, p := s.g, s.p
	abs := p.abs(p.file(g))
	old, updated := s.editPair()
	in := (&jsonObject{}).str("file_path", abs).str("old_string", old).str("new_string", updated)
	if g.chance(0.1) {
		in.boolean("replace_all", false)
	}
	if g.chance(0.06) {
		return pair(id, "Edit", &abs, in.bytes(), "<tool_use_error>String to replace not found in file.\nString: "+cutLines(old, 1)+"</tool_use_error>", true)
	}
	start := g.between(1, 500)
	result := "The file " + abs + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" +
		numbered(cutLines(updated+"\n", 12), start)
	return pair(id, "Edit", &abs, in.bytes(), result, false)
}

func (s *sessionGen) multiEdit(id string) []codec.Event {
	g, p := s.g, s.p
	abs := p.abs(p.file(g))
	var edits []byte
	n := g.between(2, 5)
	var summary strings.Builder
	summary.WriteString("Applied " + itoa(n) + " edits to " + abs + ":")
	for i := range n {
		old, updated := s.editPair()
		o := (&jsonObject{}).str("old_string", old).str("new_string", updated)
		if i > 0 {
			edits = append(edits, ',')
		}
		edits = append(edits, o.bytes()...)
		summary.WriteString("\n" + itoa(i+1) + ". Replaced \"" + firstLine(old) + "...\" with \"" + firstLine(updated) + "...\"")
	}
	in := (&jsonObject{}).str("file_path", abs).raw("edits", append(append([]byte{'['}, edits...), ']'))
	return pair(id, "MultiEdit", &abs, in.bytes(), summary.String(), false)
}

func firstLine(s string) string {
	s = strings.TrimSpace(cutLines(s, 1))
	if len(s) > 40 {
		s = s[:40]
	}
	return s
}

func (s *sessionGen) write(id string) []codec.Event {
	g, p := s.g, s.p
	rel := p.newFile(g)
	abs := p.abs(rel)
	content := p.sourceFile(g, rel, g.sized(80, 0.8, 5, 800))
	in := (&jsonObject{}).str("file_path", abs).str("content", content)
	return pair(id, "Write", &abs, in.bytes(), "File created successfully at: "+abs, false)
}

func (s *sessionGen) grep(id string) []codec.Event {
	g, p := s.g, s.p
	pattern := p.ident(g)
	if g.chance(0.3) {
		pattern = g.pick([]string{"func ", "class ", "def ", "fn ", "TODO", "import "}) + pattern
	}
	in := (&jsonObject{}).str("pattern", pattern)
	if g.chance(0.5) {
		in.str("path", p.abs(path.Dir(p.file(g))))
	}
	var b strings.Builder
	n := g.between(0, 30)
	if g.chance(0.5) {
		in.str("output_mode", "content").boolean("-n", true)
		for range n {
			b.WriteString(p.abs(p.file(g)) + ":" + g.num(1, 900) + ":" + strings.TrimSpace(cutLines(p.code(g, 1), 1)) + "\n")
		}
	} else {
		b.WriteString("Found " + itoa(n) + " files\n")
		for range n {
			b.WriteString(p.abs(p.file(g)) + "\n")
		}
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if n == 0 {
		out = "No matches found"
	}
	fp := claudePath(in)
	return pair(id, "Grep", fp, in.bytes(), out, false)
}

// claudePath is the file path Claude's parser takes from an input: its path
// key, if any.
func claudePath(in *jsonObject) *string {
	var m map[string]any
	if json.Unmarshal(in.bytes(), &m) != nil {
		return nil
	}
	for _, k := range []string{"file_path", "path"} {
		if v, ok := m[k].(string); ok {
			return &v
		}
	}
	return nil
}

func (s *sessionGen) glob(id string) []codec.Event {
	g, p := s.g, s.p
	pattern := "**/*" + p.lang.ext()
	if g.chance(0.5) {
		pattern = path.Dir(p.file(g)) + "/**/*" + g.noun() + "*"
	}
	in := (&jsonObject{}).str("pattern", pattern)
	var b strings.Builder
	for range g.between(0, 60) {
		b.WriteString(p.abs(p.file(g)) + "\n")
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if out == "" {
		out = "No files found"
	}
	return pair(id, "Glob", nil, in.bytes(), out, false)
}

func (s *sessionGen) todoWrite(id string) []codec.Event {
	g, p := s.g, s.p
	var todos []byte
	for i := range g.between(2, 8) {
		task := upperFirst(g.verb()) + " " + g.words(g.between(2, 6)) + " in " + path.Base(p.file(g))
		o := (&jsonObject{}).str("content", task).str("status", g.pick([]string{"pending", "in_progress", "completed"})).
			str("activeForm", upperFirst(gerund(g.verb()))+" "+g.words(g.between(2, 5)))
		if i > 0 {
			todos = append(todos, ',')
		}
		todos = append(todos, o.bytes()...)
	}
	in := (&jsonObject{}).raw("todos", append(append([]byte{'['}, todos...), ']'))
	return pair(id, "TodoWrite", nil, in.bytes(),
		"Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable", false)
}

func (s *sessionGen) webFetch(id string) []codec.Event {
	g, p := s.g, s.p
	url := "https://" + g.pick(webHosts) + "/" + g.noun() + "/" + g.noun() + "-" + g.verb()
	in := (&jsonObject{}).str("url", url).str("prompt", "Summarize what this page says about "+g.words(g.between(3, 8)))
	if g.chance(0.08) {
		return pair(id, "WebFetch", nil, in.bytes(), "Request failed with status code 404", true)
	}
	return pair(id, "WebFetch", nil, in.bytes(), s.maybeNeedle(g.prose(p, g.sized(1500, 0.6, 200, 8000)), 0.5), false)
}

func (s *sessionGen) webSearch(id string) []codec.Event {
	g, p := s.g, s.p
	q := g.words(g.between(3, 7)) + " " + g.noun()
	var links []byte
	for i := range g.between(3, 8) {
		o := (&jsonObject{}).str("title", upperFirst(g.words(g.between(3, 8)))).str("url", "https://"+g.pick(webHosts)+"/"+g.noun()+"-"+g.num(1, 99999))
		if i > 0 {
			links = append(links, ',')
		}
		links = append(links, o.bytes()...)
	}
	in := (&jsonObject{}).str("query", q)
	out := "Web search results for query: \"" + q + "\"\n\nLinks: [" + string(links) + "]\n\n" + g.prose(p, g.sized(800, 0.5, 100, 4000))
	return pair(id, "WebSearch", nil, in.bytes(), out, false)
}

func (s *sessionGen) task(id string) []codec.Event {
	g, p := s.g, s.p
	desc := upperFirst(g.verb()) + " " + g.words(g.between(2, 4))
	in := (&jsonObject{}).str("description", desc).str("prompt", g.prose(p, g.sized(500, 0.6, 80, 3000))).str("subagent_type", g.pick(subagents))
	return pair(id, "Task", nil, in.bytes(), s.maybeNeedle(g.markdown(p, g.sized(1800, 0.7, 200, 12000)), 0.3), false)
}

func (s *sessionGen) mcp(id string) []codec.Event {
	g := s.g
	tool := g.pick([]string{"mcp__github__get_issue", "mcp__github__list_pull_requests", "mcp__linear__search_issues", "mcp__sentry__get_event"})
	in := (&jsonObject{}).str("owner", g.pick(orgs)).str("repo", s.p.name).num("issue_number", g.between(1, 4000))
	out := "{\"number\":" + g.num(1, 4000) + ",\"title\":\"" + upperFirst(g.words(g.between(3, 9))) + "\",\"state\":\"open\",\"body\":\"" +
		strings.ReplaceAll(g.prose(s.p, g.sized(600, 0.6, 80, 4000)), "\n", "\\n") + "\"}"
	return pair(id, tool, nil, in.bytes(), out, false)
}
