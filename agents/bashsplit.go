package agents

// This file splits a Bash command the way the shell will run it, so that a
// permission rule is matched against each command it runs and not against
// the text as a whole: `git status && curl … | sh` is three commands, and
// `git $(touch x)` runs touch. The splitter is written for the hostile
// case: whatever it cannot read with certainty (an unterminated quote,
// $'…' quoting, a program named by a variable) is reported as doubt, and
// a caller that meets doubt asks rather than allows.

import (
	"path"
	"strings"
)

// shellCmd is one simple command of a command line.
type shellCmd struct {
	raw   string   // its text as written, trimmed
	rest  string   // its text to the end of the line: what a deny of a pipeline's shape sees
	words []string // its words after quote removal
	// subst: it holds a command or process substitution ($(…), `…`,
	// <(…), >(…)), whose commands are listed beside it.
	subst bool
	// unsure: its words cannot be known without running the shell
	// ($'…' quoting, a program named by an expansion or a glob).
	unsure bool
	// writes: it redirects output to a file (other than /dev/null or a
	// file descriptor).
	writes bool
}

// shellLine is a command line split into the simple commands it runs,
// those of its substitutions, shell -c strings, eval and find -exec
// included.
type shellLine struct {
	cmds []shellCmd
	// doubt: some part could not be read (an unterminated quote or
	// substitution, a nesting too deep); cmds may then be incomplete.
	doubt bool
}

// maxShellDepth bounds nested substitutions and sh -c strings.
const maxShellDepth = 16

// splitShell splits a command line into the simple commands it runs.
func splitShell(s string) shellLine {
	var l shellLine
	l.parse(s, 0)
	for _, c := range l.cmds {
		if c.unsure {
			l.doubt = true
		}
	}
	return l
}

// parse adds the commands of s, at nesting depth.
func (l *shellLine) parse(s string, depth int) {
	if depth > maxShellDepth {
		l.doubt = true
		return
	}
	p := shellParser{src: s, line: l, depth: depth}
	p.run()
}

// shellParser reads one command line (or one substitution's text).
type shellParser struct {
	src   string
	i     int
	line  *shellLine
	depth int

	cur      shellCmd
	start    int // where the current command's text starts; -1 before its first character
	word     []byte
	inWord   bool // a word is being read (it may be empty: "")
	pendRed  string
	redEnd   int // where the pending redirection's operator ends
	heredocs []heredoc
}

// heredoc is a here-document whose body starts at the next newline.
type heredoc struct {
	delim  string
	strip  bool // <<-: leading tabs are stripped
	quoted bool // its delimiter was quoted: the body is not expanded
}

func (p *shellParser) run() {
	p.start = -1
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '\\':
			p.mark()
			if p.i+1 < len(p.src) {
				if p.src[p.i+1] != '\n' { // \<newline> joins lines
					p.addByte(p.src[p.i+1])
				}
				p.i += 2
			} else {
				p.i++
			}
		case c == '\'':
			p.mark()
			p.inWord = true
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				p.line.doubt = true
				p.word = append(p.word, p.src[p.i+1:]...)
				p.i = len(p.src)
				break
			}
			p.word = append(p.word, p.src[p.i+1:p.i+1+end]...)
			p.i += end + 2
		case c == '"':
			p.mark()
			p.inWord = true
			p.doubleQuoted()
		case c == '$' && p.at("$'"):
			// ANSI-C quoting can spell any program: $'\x72m' is rm.
			p.mark()
			p.cur.unsure = true
			p.inWord = true
			p.i += 2
			for p.i < len(p.src) && p.src[p.i] != '\'' {
				if p.src[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
			if p.i >= len(p.src) {
				p.line.doubt = true
			}
			p.i++
		case c == '$' && p.at("$(("):
			p.mark()
			p.arithmetic()
		case c == '$' && p.at("$("):
			p.mark()
			p.inWord = true
			p.word = append(p.word, '$')
			p.substitution(p.i + 2)
		case c == '`':
			p.mark()
			p.inWord = true
			p.word = append(p.word, '$')
			p.backquote()
		case (c == '<' || c == '>') && p.at2(c, '('):
			p.mark()
			p.inWord = true
			p.word = append(p.word, '$')
			p.substitution(p.i + 2)
		case c == '<' || c == '>' || (c == '&' && p.at("&>")):
			p.mark()
			p.redirection()
		case c == ' ' || c == '\t':
			p.endWord()
			p.i++
		case c == '\n':
			p.endWord()
			p.endCmd()
			p.i++
			p.skipHeredocs()
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			p.endWord()
			p.endCmd()
			p.i++
		default:
			p.mark()
			p.addByte(c)
			p.i++
		}
	}
	p.endWord()
	p.endCmd()
	if p.pendRed != "" || len(p.heredocs) > 0 {
		// A redirection without its target, or a here-document without
		// its body: the line is incomplete.
		p.line.doubt = true
	}
}

// at reports whether the source continues with s at the cursor.
func (p *shellParser) at(s string) bool { return strings.HasPrefix(p.src[p.i:], s) }

// at2 reports whether the cursor is on a followed by b.
func (p *shellParser) at2(a, b byte) bool {
	return p.i+1 < len(p.src) && p.src[p.i] == a && p.src[p.i+1] == b
}

// mark notes that the current command has started.
func (p *shellParser) mark() {
	if p.start < 0 {
		p.start = p.i
	}
}

func (p *shellParser) addByte(c byte) {
	p.inWord = true
	p.word = append(p.word, c)
}

// doubleQuoted reads a "…" string from its opening quote.
func (p *shellParser) doubleQuoted() {
	p.i++
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return
		case c == '\\' && p.i+1 < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.i+1]) >= 0:
			if p.src[p.i+1] != '\n' {
				p.word = append(p.word, p.src[p.i+1])
			}
			p.i += 2
		case c == '$' && p.at("$(("):
			p.arithmetic()
		case c == '$' && p.at("$("):
			p.word = append(p.word, '$')
			p.substitution(p.i + 2)
		case c == '`':
			p.word = append(p.word, '$')
			p.backquote()
		default:
			p.word = append(p.word, c)
			p.i++
		}
	}
	p.line.doubt = true // unterminated
}

// substitution reads $(…), <(…) or >(…) whose text starts at from, and
// adds its commands to the line.
func (p *shellParser) substitution(from int) {
	p.cur.subst = true
	end := matchParen(p.src, from)
	if end < 0 {
		p.line.doubt = true
		p.line.parse(p.src[from:], p.depth+1)
		p.i = len(p.src)
		return
	}
	p.line.parse(p.src[from:end], p.depth+1)
	p.i = end + 1
}

// arithmetic reads $((…)) as part of a word; a substitution inside it
// still counts.
func (p *shellParser) arithmetic() {
	p.inWord = true
	end := matchParen(p.src, p.i+2)
	if end < 0 {
		p.line.doubt = true
		p.i = len(p.src)
		return
	}
	inner := p.src[p.i+3 : end]
	if strings.Contains(inner, "$(") || strings.Contains(inner, "`") {
		p.cur.subst = true
		p.line.parse(inner, p.depth+1)
	}
	p.word = append(p.word, p.src[p.i:end+1]...)
	p.i = end + 1
}

// backquote reads `…` from its opening backquote.
func (p *shellParser) backquote() {
	p.cur.subst = true
	var inner strings.Builder
	j := p.i + 1
	for ; j < len(p.src) && p.src[j] != '`'; j++ {
		if p.src[j] == '\\' && j+1 < len(p.src) {
			j++
		}
		inner.WriteByte(p.src[j])
	}
	if j >= len(p.src) {
		p.line.doubt = true
	}
	p.line.parse(inner.String(), p.depth+1)
	p.i = j + 1
}

// matchParen returns the index of the ")" closing a substitution whose
// text starts at from, skipping quotes and nested parentheses; -1 when
// there is none.
func matchParen(s string, from int) int {
	depth := 0
	for j := from; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\'':
			k := strings.IndexByte(s[j+1:], '\'')
			if k < 0 {
				return -1
			}
			j += k + 1
		case '"':
			for j++; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

// redirection reads a redirection operator; its target is the next word.
func (p *shellParser) redirection() {
	// A word of digits right before the operator is its file descriptor.
	if p.inWord && isDigits(string(p.word)) {
		p.word, p.inWord = p.word[:0], false
	} else {
		p.endWord()
	}
	ops := []string{"<<<", "<<-", "&>>", "<<", ">>", ">|", ">&", "<&", "<>", "&>", "<", ">"}
	for _, op := range ops {
		if p.at(op) {
			p.i += len(op)
			p.pendRed, p.redEnd = op, p.i
			return
		}
	}
}

// endWord finishes the word being read.
func (p *shellParser) endWord() {
	if !p.inWord {
		return
	}
	w := string(p.word)
	p.word, p.inWord = p.word[:0], false
	if op := p.pendRed; op != "" {
		p.pendRed = ""
		p.target(op, w)
		return
	}
	p.cur.words = append(p.cur.words, w)
}

// target records what a redirection does with its target word.
func (p *shellParser) target(op, w string) {
	switch op {
	case "<<", "<<-":
		quoted := strings.ContainsAny(p.src[p.redEnd:p.i], `'"\`)
		p.heredocs = append(p.heredocs, heredoc{delim: w, strip: op == "<<-", quoted: quoted})
	case "<", "<<<", "<&":
	case ">&":
		if !isDigits(w) && w != "-" && w != "/dev/null" {
			p.cur.writes = true
		}
	default:
		if w != "/dev/null" {
			p.cur.writes = true
		}
	}
}

// endCmd finishes the current simple command.
func (p *shellParser) endCmd() {
	if p.pendRed != "" {
		p.line.doubt = true
		p.pendRed = ""
	}
	if p.start >= 0 && p.start <= p.i {
		p.cur.raw = strings.TrimSpace(p.src[p.start:min(p.i, len(p.src))])
		p.cur.rest = strings.TrimSpace(p.src[p.start:])
	}
	if len(p.cur.words) > 0 || p.cur.raw != "" {
		p.line.cmds = append(p.line.cmds, p.cur.expand(p.line, p.depth)...)
	}
	p.cur = shellCmd{}
	p.start = -1
}

// skipHeredocs skips the bodies of the here-documents announced on the
// line just ended; an unquoted body that substitutes a command is doubt.
func (p *shellParser) skipHeredocs() {
	for _, h := range p.heredocs {
		for {
			if p.i >= len(p.src) {
				p.line.doubt = true
				break
			}
			end := strings.IndexByte(p.src[p.i:], '\n')
			if end < 0 {
				end = len(p.src) - p.i
			}
			ln := p.src[p.i : p.i+end]
			p.i += end + 1
			if h.strip {
				ln = strings.TrimLeft(ln, "\t")
			}
			if ln == h.delim {
				break
			}
			if !h.quoted && (strings.Contains(ln, "$(") || strings.Contains(ln, "`")) {
				p.line.doubt = true
			}
		}
	}
	p.heredocs = nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// shellKeywords start a command without being its program.
var shellKeywords = map[string]bool{
	"!": true, "{": true, "}": true, "then": true, "do": true, "else": true, "elif": true,
	"if": true, "while": true, "until": true, "time": true, "coproc": true,
	"fi": true, "done": true, "esac": true,
}

// shells are the programs whose -c string is a command line.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true,
	"busybox": true, "su": true, "runuser": true}

// wrappers run the command that follows their own options; the value is
// the options that take an argument of their own.
var wrappers = map[string]string{
	"sudo": "ugCDprtUTh", "doas": "uC", "env": "uCS", "command": "", "builtin": "", "exec": "a",
	"nohup": "", "nice": "n", "timeout": "sk", "stdbuf": "ioe", "ionice": "cnp", "setsid": "",
	"xargs": "EIidLlnPsa", "chrt": "", "taskset": "", "flock": "w", "unbuffer": "", "caffeinate": "",
	"chroot": "",
}

// expand returns c as the commands it runs: c itself (keywords and
// variable assignments before the program dropped), then, for a wrapper
// (sudo, env, timeout, …), the command it wraps, for sh -c and eval their
// strings' commands, and for find the programs of -exec.
func (c shellCmd) expand(l *shellLine, depth int) []shellCmd {
	w := c.words
	for len(w) > 0 && (shellKeywords[w[0]] || isAssignment(w[0])) {
		w = w[1:]
	}
	c.words = w
	if len(w) == 0 {
		if c.raw == "" {
			return nil
		}
		return []shellCmd{c}
	}
	if strings.ContainsAny(w[0], "$*?[") || w[0] == "" {
		c.unsure = true
	}
	out := []shellCmd{c}
	prog := path.Base(w[0])
	switch {
	case shells[prog]:
		for i := 1; i < len(w); i++ {
			if strings.HasPrefix(w[i], "-") && !strings.HasPrefix(w[i], "--") && strings.Contains(w[i], "c") && i+1 < len(w) {
				l.parse(w[i+1], depth+1)
				break
			}
		}
	case prog == "eval":
		l.parse(strings.Join(w[1:], " "), depth+1)
	case prog == "find":
		for i := 1; i < len(w); i++ {
			if w[i] == "-exec" || w[i] == "-execdir" || w[i] == "-ok" || w[i] == "-okdir" {
				j := i + 1
				for j < len(w) && w[j] != ";" && w[j] != "+" {
					j++
				}
				if j > i+1 {
					out = append(out, shellCmd{raw: strings.Join(w[i+1:j], " "), words: w[i+1 : j]}.expand(l, depth)...)
				}
				i = j
			}
		}
	default:
		if argOpts, ok := wrappers[prog]; ok {
			if inner := unwrap(prog, argOpts, w[1:]); len(inner) > 0 {
				out = append(out, shellCmd{raw: strings.Join(inner, " "), words: inner, writes: c.writes}.expand(l, depth)...)
			} else if prog == "env" && len(w) > 1 && hasShortOpt(w[1:], 'S') {
				out[0].unsure = true
			}
		}
	}
	return out
}

// unwrap returns the command a wrapper runs: the words after its options
// (and, for env, variable assignments; for timeout, the duration; for
// chroot, the new root).
func unwrap(prog, argOpts string, w []string) []string {
	for len(w) > 0 {
		a := w[0]
		switch {
		case a == "--":
			w = w[1:]
			return positional(prog, w)
		case strings.HasPrefix(a, "--"):
			w = w[1:]
			if !strings.Contains(a, "=") && longTakesArg(prog, a) && len(w) > 0 {
				w = w[1:]
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			w = w[1:]
			// -n 5, -u root: the option's argument is the next word
			// unless it is attached (-n5).
			last := a[len(a)-1]
			if strings.IndexByte(argOpts, last) >= 0 && len(a) == 2 && len(w) > 0 {
				w = w[1:]
			}
		case prog == "env" && isAssignment(a):
			w = w[1:]
		default:
			return positional(prog, w)
		}
	}
	return nil
}

// positional drops the positional arguments a wrapper takes before the
// command: timeout's duration, chroot's new root, flock's file.
func positional(prog string, w []string) []string {
	switch prog {
	case "timeout", "chroot", "flock", "taskset":
		if len(w) > 0 {
			return w[1:]
		}
	case "chrt":
		if len(w) > 0 && isDigits(w[0]) {
			return w[1:]
		}
	}
	return w
}

// longTakesArg reports whether a wrapper's long option takes the next word.
func longTakesArg(prog, opt string) bool {
	switch prog {
	case "sudo":
		return opt == "--user" || opt == "--group" || opt == "--chdir" || opt == "--prompt" || opt == "--role" || opt == "--type" || opt == "--other-user" || opt == "--host" || opt == "--close-from"
	case "env":
		return opt == "--unset" || opt == "--chdir" || opt == "--split-string"
	case "timeout":
		return opt == "--signal" || opt == "--kill-after"
	case "xargs":
		return opt == "--arg-file" || opt == "--delimiter" || opt == "--max-args" || opt == "--max-procs" || opt == "--max-lines" || opt == "--replace"
	}
	return false
}

// hasShortOpt reports whether words hold the short option o before the
// first non-option.
func hasShortOpt(w []string, o byte) bool {
	for _, a := range w {
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			return a == "--split-string" || strings.HasPrefix(a, "--split-string=")
		}
		if strings.IndexByte(a[1:], o) >= 0 {
			return true
		}
	}
	return false
}

// isAssignment reports whether w is a variable assignment (NAME=value).
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// normalized is the command as a deny rule sees it: its words joined by
// single spaces, its program by its base name (/bin/rm is rm).
func (c shellCmd) normalized() string {
	if len(c.words) == 0 {
		return ""
	}
	w := append([]string{path.Base(c.words[0])}, c.words[1:]...)
	return strings.Join(w, " ")
}
