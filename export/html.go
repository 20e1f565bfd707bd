package export

import (
	"bufio"
	"html"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/editdiff"
)

// renderHTML writes src as one self-contained HTML5 page: inline CSS that
// follows the system's light or dark mode, no scripts, no external URLs.
// Every piece of content is HTML-escaped; assistant text, plans and
// summaries are rendered from Markdown by goldmark with raw HTML escaped
// and only safe links kept (see markdownHTML). Tool results and hook output are collapsible
// (<details>), diffs are coloured.
func renderHTML(w *bufio.Writer, src Source) error {
	name := src.Session.DisplayName()
	w.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	w.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	w.WriteString("<meta name=\"color-scheme\" content=\"light dark\">\n")
	w.WriteString("<meta name=\"generator\" content=\"" + generator + "\">\n")
	w.WriteString("<title>" + esc(name) + " · " + generator + "</title>\n<style>\n" + css + "</style>\n</head>\n<body>\n<main>\n")
	w.WriteString("<header>\n<h1>" + esc(name) + "</h1>\n<dl class=\"meta\">\n")
	for _, m := range metadata(src) {
		w.WriteString("<dt>" + esc(m.label) + "</dt><dd>" + esc(m.value) + "</dd>\n")
	}
	w.WriteString("</dl>\n</header>\n")
	for _, it := range items(src) {
		htmlItem(w, &it)
	}
	w.WriteString("<footer>Exported from " + generator + ".</footer>\n</main>\n</body>\n</html>\n")
	return nil
}

// htmlItem writes one item.
func htmlItem(w *bufio.Writer, it *item) {
	id := ""
	if it.kind != itemCompaction && it.kind != itemThinking { // thinking shares its event's seq
		id = " id=\"e" + strconv.FormatInt(it.seq, 10) + "\""
	}
	if it.reply {
		w.WriteString("<h3 class=\"reply\">Assistant</h3>\n")
	}
	switch it.kind {
	case itemUser:
		w.WriteString("<section class=\"user\"" + id + "><h2>You</h2>\n<div class=\"text\">" + esc(it.text) + "</div>\n</section>\n")
	case itemAssistant:
		w.WriteString("<div class=\"assistant md\"" + id + ">\n")
		markdownHTML(w, it.text)
		w.WriteString("</div>\n")
	case itemPlan:
		w.WriteString("<div class=\"plan\"" + id + "><div class=\"label\">Plan: " + esc(it.title) + "</div>\n<div class=\"md\">\n")
		markdownHTML(w, it.text)
		w.WriteString("</div>\n</div>\n")
	case itemTool:
		htmlTool(w, it, id)
	case itemResult:
		htmlResult(w, it, id)
	case itemHook:
		if it.text == "" {
			w.WriteString("<p class=\"notice\"" + id + ">Hook " + esc(it.title) + "</p>\n")
			return
		}
		w.WriteString("<details class=\"hook\"" + id + "><summary>Hook " + esc(it.title) + " <code class=\"peek\">" +
			esc(firstLine(cleanText(it.text), 80)) + "</code></summary>\n" + pre("", cleanText(it.text)))
		htmlNote(w, it.note)
		w.WriteString("</details>\n")
	case itemComplete:
		class := "done ok"
		if !it.ok {
			class = "done fail"
		}
		w.WriteString("<p class=\"" + class + "\"" + id + ">" + esc(it.title) + "</p>\n")
	case itemNotice:
		w.WriteString("<p class=\"notice\"" + id + ">" + esc(it.title) + "</p>\n")
	case itemThinking:
		w.WriteString("<details class=\"thinking\"><summary>Thinking <code class=\"peek\">" +
			esc(firstLine(cleanText(it.text), 80)) + "</code></summary>\n" + pre("", cleanText(it.text)) + "</details>\n")
	case itemCompaction:
		w.WriteString("<details class=\"compaction\"><summary>" + esc(it.title) + " <span class=\"muted\">· covers up to event #" +
			strconv.FormatInt(it.seq, 10) + "</span></summary>\n<div class=\"md\">\n")
		markdownHTML(w, it.text)
		w.WriteString("</div>\n</details>\n")
	}
}

// htmlTool writes a tool call: its name and key parameter, then its diff,
// command or input.
func htmlTool(w *bufio.Writer, it *item, id string) {
	w.WriteString("<div class=\"tool\"" + id + "><div class=\"head\"><span class=\"name\">" + esc(it.title) + "</span>")
	if it.param != "" {
		w.WriteString(" <code class=\"param\">" + esc(firstLine(it.param, maxParamRunes)) + "</code>")
	}
	if it.note != "" {
		w.WriteString(" <span class=\"muted\">· " + esc(it.note) + "</span>")
	}
	w.WriteString("</div>\n")
	switch {
	case it.diff != nil:
		w.WriteString("<pre class=\"diff\">")
		for _, l := range it.diff {
			w.WriteString("<span class=\"" + diffClass(l.Op) + "\">" + esc(l.Text) + "\n</span>")
		}
		w.WriteString("</pre>\n")
	case it.code != "":
		w.WriteString(pre("code "+it.lang, it.code))
	}
	w.WriteString("</div>\n")
}

func diffClass(op editdiff.Op) string {
	switch op {
	case editdiff.Insert:
		return "l ins"
	case editdiff.Delete:
		return "l del"
	case editdiff.Hunk:
		return "l hunk"
	case editdiff.Meta:
		return "l file"
	}
	return "l"
}

// htmlResult writes a tool result, collapsed, with its first line and
// line count in the summary.
func htmlResult(w *bufio.Writer, it *item, id string) {
	class, label := "result", "Result"
	if !it.ok {
		class, label = "result err", "Error"
	}
	text := cleanText(it.text)
	if text == "" {
		w.WriteString("<p class=\"" + class + " empty\"" + id + "><span class=\"name\">" + label + "</span> <span class=\"muted\">· empty</span></p>\n")
		return
	}
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	w.WriteString("<details class=\"" + class + "\"" + id + "><summary><span class=\"name\">" + label + "</span>")
	if it.title != "" {
		w.WriteString(" <span class=\"muted\">" + esc(it.title) + " · " + display.Plural(lines, "line") + "</span>")
	}
	w.WriteString(" <code class=\"peek\">" + esc(firstLine(text, 80)) + "</code></summary>\n" + pre("", text))
	htmlNote(w, it.note)
	htmlFull(w, it.full)
	w.WriteString("</details>\n")
}

// htmlFull writes the full text of a shortened event, collapsed.
func htmlFull(w *bufio.Writer, full string) {
	if full == "" {
		return
	}
	text, note, lines := fullPart(full)
	w.WriteString("<details class=\"full\"><summary><span class=\"muted\">Full output · " + lines + "</span></summary>\n" + pre("", text))
	htmlNote(w, note)
	w.WriteString("</details>\n")
}

// pre returns text in a <pre> element of class, keeping a first empty
// line (which HTML drops right after <pre>).
func pre(class, text string) string {
	open := "<pre>"
	if class != "" {
		open = "<pre class=\"" + class + "\">"
	}
	if strings.HasPrefix(text, "\n") {
		open += "\n"
	}
	return open + esc(text) + "</pre>\n"
}

func htmlNote(w *bufio.Writer, note string) {
	if note != "" {
		w.WriteString("<p class=\"note\">" + esc(note) + "</p>\n")
	}
}

// esc escapes text for HTML content and attribute values, as valid UTF-8
// without control characters.
func esc(s string) string {
	return html.EscapeString(cleanText(s))
}

// css styles an HTML export. Colours follow the system's light or dark
// mode; everything stays readable without it (and in print).
const css = `:root{--bg:#ffffff;--fg:#1f2328;--muted:#656d76;--border:#d0d7de;--card:#f6f8fa;--user:#ddf4ff;--user-border:#54aeff;
--accent:#0969da;--ins:#dafbe1;--ins-fg:#116329;--del:#ffebe9;--del-fg:#82071e;--hunk:#8250df;--err:#cf222e;--ok:#1a7f37}
@media (prefers-color-scheme: dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--border:#30363d;--card:#161b22;--user:#112d4e;
--user-border:#1f6feb;--accent:#4493f8;--ins:rgba(46,160,67,.22);--ins-fg:#7ee787;--del:rgba(248,81,73,.22);--del-fg:#ffa198;
--hunk:#d2a8ff;--err:#f85149;--ok:#3fb950}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:900px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:1.7em;margin:.2em 0 .4em;overflow-wrap:anywhere}
h2,h3{margin:0}
a{color:var(--accent)}
code,pre{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:13px}
pre{margin:.4em 0;padding:10px 12px;background:var(--card);border:1px solid var(--border);border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0 0 24px;padding:12px 16px;background:var(--card);border:1px solid var(--border);border-radius:8px}
.meta dt{color:var(--muted)}.meta dd{margin:0;overflow-wrap:anywhere}
.user{margin:28px 0 12px;padding:10px 14px;background:var(--user);border-left:4px solid var(--user-border);border-radius:6px}
.user h2{font-size:.8em;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin-bottom:4px}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.reply{font-size:.8em;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:16px 0 4px}
.md{overflow-wrap:anywhere}.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md p,.md ul,.md ol,.md blockquote,.md table{margin:.5em 0}
.md h1,.md h2,.md h3,.md h4,.md h5,.md h6{font-size:1.05em;margin:.9em 0 .3em}.md h1,.md h2{font-size:1.2em}
.md code{background:var(--card);border:1px solid var(--border);border-radius:4px;padding:0 .3em}
.md pre code{background:none;border:0;padding:0}
.md blockquote{margin-left:0;padding-left:12px;border-left:3px solid var(--border);color:var(--muted)}
.md table{border-collapse:collapse;display:block;overflow-x:auto}
.md th,.md td{border:1px solid var(--border);padding:4px 8px;text-align:left}
.md hr{border:0;border-top:1px solid var(--border)}
.assistant{margin:8px 0}
.plan{margin:10px 0;padding:10px 14px;border:1px solid var(--border);border-radius:6px}
.label{font-weight:600;margin-bottom:4px}
.tool{margin:10px 0 2px}
.tool .head{font-size:13px;overflow-wrap:anywhere}
.name{font-weight:600}
.param{color:var(--accent)}
.muted{color:var(--muted);font-weight:normal}
.diff{padding:6px 0}
.diff .l{display:block;padding:0 12px;min-height:1.4em}
.diff .ins{background:var(--ins);color:var(--ins-fg)}
.diff .del{background:var(--del);color:var(--del-fg)}
.diff .hunk{color:var(--hunk)}
.diff .file{color:var(--muted);font-weight:600}
details{margin:2px 0 10px;border:1px solid var(--border);border-radius:6px;background:var(--bg)}
details>summary{cursor:pointer;padding:4px 10px;font-size:13px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
details>pre,details>.md,details>.note{margin:0 10px 10px}
details[open]>summary .peek{display:none}
.peek{color:var(--muted);margin-left:6px}
.result.err{border-color:var(--err)}.result.err .name{color:var(--err)}
p.result{font-size:13px;margin:2px 0 10px}
.compaction{margin:20px 0;border-style:dashed}
.compaction>.md{margin:0 14px 12px}
.note{color:var(--muted);font-size:13px;font-style:italic}
.notice{color:var(--muted);font-size:13px;margin:6px 0}
.done{font-size:13px;margin:8px 0 0;font-weight:600}.done.ok{color:var(--ok)}.done.fail{color:var(--err)}
footer{margin-top:40px;padding-top:12px;border-top:1px solid var(--border);color:var(--muted);font-size:13px}
@media print{details{border:0}details>summary{white-space:normal}}
`
