package agents

// This file splits a Bash command the way the shell will run it, so that a
// permission rule is matched against each command it runs and not against
// the text as a whole: `git status && curl … | sh` is three commands, and
// `git $(touch x)` runs touch. The splitter is written for the hostile
// case: whatever it cannot read with certainty (an unterminated quote,
// $'…' quoting, a program named by a variable) is reported as doubt, and
// a caller that meets doubt asks rather than allows.

import (
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
