package agents

// This file reads what a simple command runs (bashsplit.go splits the line
// into them): the program after keywords and assignments, the command a
// wrapper such as sudo or timeout runs, the strings of sh -c and eval, and
// find's -exec.

import (
	"path"
	"strings"
)

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
