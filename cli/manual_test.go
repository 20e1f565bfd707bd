package cli

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated part of docs/cli.md")

// helpCommands reads the command table back from `lazuli help`'s output.
func helpCommands(t *testing.T, help string) []CommandHelp {
	t.Helper()
	_, table, ok := strings.Cut(help, "\ncommands:\n")
	if !ok {
		t.Fatalf("lazuli help has no commands: section:\n%s", help)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	lines := strings.Split(table, "\n")
	if len(lines)%2 != 0 {
		t.Fatalf("lazuli help's commands are not pairs of lines:\n%s", table)
	}
	var out []CommandHelp
	for i := 0; i < len(lines); i += 2 {
		name, summary, _ := strings.Cut(strings.TrimSpace(lines[i]), " ")
		out = append(out, CommandHelp{name, strings.TrimSpace(lines[i+1]), strings.TrimSpace(summary)})
	}
	return out
}

// unroff undoes roff's escapes.
func unroff(s string) string {
	return strings.NewReplacer(`\-`, "-", `\e`, `\`, `\&`, "").Replace(s)
}

// manCommands reads the command table back from the manual page.
func manCommands(t *testing.T, man string) []CommandHelp {
	t.Helper()
	_, sect, ok := strings.Cut(man, "\n.SH COMMANDS\n")
	if !ok {
		t.Fatalf("the manual page has no COMMANDS section:\n%s", man)
	}
	sect, _, _ = strings.Cut(sect, "\n.SH ")
	var out []CommandHelp
	for _, item := range strings.Split(sect, ".TP\n")[1:] {
		l := strings.Split(strings.TrimSuffix(item, "\n"), "\n")
		if len(l) != 4 || !strings.HasPrefix(l[0], ".B ") || !strings.HasPrefix(l[1], ".I ") || l[2] != ".br" {
			t.Fatalf("a command of the manual page is not .B NAME, .I ARGS, .br, SUMMARY: %q", item)
		}
		out = append(out, CommandHelp{unroff(l[0][3:]), unroff(l[1][3:]), unroff(l[3])})
	}
	return out
}

// TestManMatchesHelp: `lazuli help` and `lazuli help --man` list the same
// commands with the same arguments and summaries, and the same notes.
func TestManMatchesHelp(t *testing.T) {
	code, help, _ := run(t, t.TempDir(), "help")
	if code != ExitOK {
		t.Fatalf("lazuli help: exit %d", code)
	}
	code, man, _ := run(t, t.TempDir(), "help", "--man")
	if code != ExitOK {
		t.Fatalf("lazuli help --man: exit %d", code)
	}
	fromHelp, fromMan := helpCommands(t, help), manCommands(t, man)
	if len(fromHelp) != len(commands()) {
		t.Errorf("lazuli help lists %d commands, the table has %d", len(fromHelp), len(commands()))
	}
	if len(fromHelp) != len(fromMan) {
		t.Errorf("lazuli help lists %d commands, the manual page %d", len(fromHelp), len(fromMan))
	}
	for i := range min(len(fromHelp), len(fromMan)) {
		if fromHelp[i] != fromMan[i] {
			t.Errorf("command %d: lazuli help says %+v, the manual page %+v", i, fromHelp[i], fromMan[i])
		}
	}
	for _, n := range notes {
		if !strings.Contains(help, n+"\n") || !strings.Contains(unroff(man), n+"\n") {
			t.Errorf("the note %q is not in both lazuli help and the manual page", n)
		}
	}
	for _, s := range synopsis {
		if !strings.Contains(help, "lazuli "+s[0]) || !strings.Contains(unroff(man), ".B lazuli "+s[0]+"\n"+s[1]) {
			t.Errorf("the synopsis line %q is not in both lazuli help and the manual page", s)
		}
	}
}

// TestManRenders: groff formats the manual page without a warning.
func TestManRenders(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("no groff")
	}
	var man bytes.Buffer
	WriteMan(&man)
	cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = &man
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff -man -ww: %v\n%s", err, out)
	}
}

const (
	refBegin = "<!-- BEGIN generated from the command table by `go test ./cli -run TestCLIReference -update`; edit cli/ instead -->\n"
	refEnd   = "<!-- END generated -->\n"
)

// TestCLIReference: docs/cli.md holds the command reference of the
// command table; after a change to a command, regenerate it with
// go test ./cli -run TestCLIReference -update.
func TestCLIReference(t *testing.T) {
	const path = "../docs/cli.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok1 := strings.Cut(string(doc), refBegin)
	old, tail, ok2 := strings.Cut(rest, refEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the generated block's markers %q … %q", path, refBegin, refEnd)
	}
	var want bytes.Buffer
	WriteReference(&want)
	if old == want.String() {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(head+refBegin+want.String()+refEnd+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's command reference differs from the command table; run go test ./cli -run TestCLIReference -update\nwant:\n%s", path, want.String())
}
