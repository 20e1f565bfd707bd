package cli

import (
	"fmt"
	"io"
	"strings"
)

// The lines around the command table. `lazuli help`, the manual page
// (WriteMan) and the reference in docs/cli.md (WriteReference) all print
// them and the table from commands(), so the three cannot drift apart.
var (
	// synopsis is each way to start lazuli, and what it does.
	synopsis = [][2]string{
		{"[PATH]", "open the window on a project, worktree or .azs file"},
		{"--demo", "open the window on a demo project of sample sessions"},
		{"COMMAND [ARGS]", "run a command without a window"},
	}
	// notes explain the placeholders the table uses.
	notes = []string{
		"P is an .azs file, or a folder meaning FOLDER/.azureal/sessions.azs (default: the current folder).",
		"SESSION is a session number: 3 or S3.",
	}
)

// manDescription is the manual page's DESCRIPTION.
const manDescription = `Lazuli keeps every coding-agent session of a worktree (Claude Code, Codex) in one
portable SQLite file, WORKTREE/.azureal/sessions.azs, in AZUREAL's v3 format. Without a command
it opens the window on a project, a worktree or a store. With one, it works without a window:
import transcripts and the agents' own history, search, total tokens and cost, export, run an
agent, and push to a team database.`

// CommandHelp is one command of the table `lazuli help` prints.
type CommandHelp struct {
	// Name is the command, as typed after lazuli.
	Name string
	// Args is its arguments and options, in usage notation.
	Args string
	// Summary is what it does, in one line.
	Summary string
}

// Commands returns the commands `lazuli help` lists, in its order.
func Commands() []CommandHelp {
	var out []CommandHelp
	for _, c := range commands() {
		out = append(out, CommandHelp{c.name, c.args, c.summary})
	}
	return out
}

// writeUsage is `lazuli help`.
func writeUsage(w io.Writer) {
	for i, s := range synopsis {
		lead := "usage:"
		if i > 0 {
			lead = "      "
		}
		fmt.Fprintf(w, "%s lazuli %-17s %s\n", lead, s[0], s[1])
	}
	fmt.Fprintln(w, "\ncommands:")
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.name))
	}
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-*s  %s\n  %*s  %s\n", width, c.name, c.summary, width, "", c.args)
	}
	fmt.Fprintln(w)
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}

// roff escapes text for a man(7) page: backslashes, hyphens (so that
// options copy as ASCII minus signs) and a leading dot or quote.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// WriteMan writes lazuli(1), the manual page, in man(7) macros: the same
// synopsis, commands and notes as `lazuli help` (`lazuli help --man`
// prints it; `make deb` installs it).
func WriteMan(w io.Writer) {
	fmt.Fprintln(w, `.TH LAZULI 1 "" "Lazuli" "User Commands"`)
	fmt.Fprintln(w, ".SH NAME")
	fmt.Fprintln(w, `lazuli \- the home of coding\-agent sessions`)
	fmt.Fprintln(w, ".SH SYNOPSIS")
	for i, s := range synopsis {
		if i > 0 {
			fmt.Fprintln(w, ".br")
		}
		fmt.Fprintf(w, ".B lazuli\n%s\n", roff(s[0]))
	}
	fmt.Fprintln(w, ".SH DESCRIPTION")
	fmt.Fprintln(w, roff(manDescription))
	fmt.Fprintln(w, ".PP")
	for _, s := range synopsis {
		fmt.Fprintf(w, ".TP\n.B lazuli %s\n%s\n", roff(s[0]), roff(s[1]))
	}
	fmt.Fprintln(w, ".SH COMMANDS")
	for _, c := range commands() {
		fmt.Fprintf(w, ".TP\n.B %s\n.I %s\n.br\n%s\n", roff(c.name), roff(c.args), roff(c.summary))
	}
	fmt.Fprintln(w, ".SH NOTES")
	for _, n := range notes {
		fmt.Fprintf(w, ".PP\n%s\n", roff(n))
	}
	fmt.Fprintln(w, ".SH FILES")
	fmt.Fprintln(w, ".TP\n.I WORKTREE/.azureal/sessions.azs\na worktree's sessions (AZUREAL's v3 store)")
	fmt.Fprintln(w, ".TP\n.I ~/.cache/lazuli\nthe search and insight indexes, rebuilt from the stores when missing")
	fmt.Fprintln(w, ".SH SEE ALSO")
	fmt.Fprintln(w, "The manual: https://github.com/lazuli\\-app/lazuli/tree/main/docs")
}

// WriteReference writes the command reference of docs/cli.md in Markdown:
// the same synopsis, commands and notes as `lazuli help`.
func WriteReference(w io.Writer) {
	fmt.Fprintln(w, "```")
	for _, s := range synopsis {
		fmt.Fprintf(w, "lazuli %-20s # %s\n", s[0], s[1])
	}
	fmt.Fprintln(w, "```")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| command | what it does |")
	fmt.Fprintln(w, "|---|---|")
	for _, c := range commands() {
		fmt.Fprintf(w, "| `%s` | %s<br>`lazuli %s %s` |\n", c.name, mdCell(c.summary), c.name, strings.ReplaceAll(c.args, "|", `\|`))
	}
	fmt.Fprintln(w)
	for _, n := range notes {
		fmt.Fprintf(w, "%s\n", n)
	}
}

// mdCell makes text safe in a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
