package proctime

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Separator stands between the specs of a run's command line.
const Separator = "::"

// Spec is one thing a run measures: a command run as a process, or an
// HTTP GET.
type Spec struct {
	Program string   // the table's column: "lazuli"
	Row     string   // the table's row: "no-change re-import"
	Args    []string // the command and its arguments; nil for an HTTP GET
	URL     string   // the URL of an HTTP GET
	Env     []string // KEY=VALUE pairs added to the command's environment
	// Ready, when set, ends the measurement at the first line of the
	// command's standard output that matches; the process is then
	// interrupted (a server's start: exec to "listening").
	Ready *regexp.Regexp
	// Stdout is a file that gets the command's standard output (each run
	// overwrites it); empty discards it.
	Stdout string
}

// Kind returns "http", "ready" or "process".
func (s Spec) Kind() string {
	switch {
	case s.URL != "":
		return "http"
	case s.Ready != nil:
		return "ready"
	}
	return "process"
}

// Command returns the command line or URL, quoted where a word needs it.
func (s Spec) Command() string {
	if s.URL != "" {
		return "GET " + s.URL
	}
	words := make([]string, len(s.Args))
	for i, a := range s.Args {
		words[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			words[i] = strconv.Quote(a)
		}
	}
	return strings.Join(words, " ")
}

// ParseSpecs reads the specs of a run's command line, separated by "::":
//
//	PROGRAM:ROW [+ready=REGEXP] [+env=KEY=VALUE]... [+stdout=FILE] COMMAND [ARG...]
//	PROGRAM:ROW http://HOST/PATH
//
// A spec whose command is an http:// or https:// URL is an HTTP GET.
func ParseSpecs(args []string) ([]Spec, error) {
	var specs []Spec
	start := 0
	for i := 0; i <= len(args); i++ {
		if i < len(args) && args[i] != Separator {
			continue
		}
		s, err := parseSpec(args[start:i])
		if err != nil {
			return nil, fmt.Errorf("spec %d: %w", len(specs)+1, err)
		}
		specs = append(specs, s)
		start = i + 1
	}
	return specs, nil
}

func parseSpec(words []string) (Spec, error) {
	var s Spec
	if len(words) == 0 {
		return s, fmt.Errorf("empty (two %q in a row, or one at an end)", Separator)
	}
	program, row, ok := strings.Cut(words[0], ":")
	if !ok || program == "" || row == "" {
		return s, fmt.Errorf("label %q is not PROGRAM:ROW", words[0])
	}
	s.Program, s.Row = program, row
	rest := words[1:]
	for len(rest) > 0 && strings.HasPrefix(rest[0], "+") {
		key, val, _ := strings.Cut(rest[0][1:], "=")
		switch key {
		case "ready":
			re, err := regexp.Compile(val)
			if err != nil || val == "" {
				return s, fmt.Errorf("+ready=%q: not a regular expression", val)
			}
			s.Ready = re
		case "env":
			if k, _, ok := strings.Cut(val, "="); !ok || k == "" {
				return s, fmt.Errorf("+env=%q: not KEY=VALUE", val)
			}
			s.Env = append(s.Env, val)
		case "stdout":
			if val == "" {
				return s, fmt.Errorf("+stdout needs a file")
			}
			s.Stdout = val
		default:
			return s, fmt.Errorf("unknown option %q (+ready, +env, +stdout)", rest[0])
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return s, fmt.Errorf("%s: no command", words[0])
	}
	if strings.HasPrefix(rest[0], "http://") || strings.HasPrefix(rest[0], "https://") {
		if s.Ready != nil || s.Env != nil || s.Stdout != "" || len(rest) > 1 {
			return s, fmt.Errorf("%s: an HTTP GET takes no +options and no arguments", words[0])
		}
		s.URL = rest[0]
		return s, nil
	}
	s.Args = rest
	return s, nil
}
