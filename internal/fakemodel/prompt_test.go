package fakemodel

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// bigPrompt returns a context-injected prompt of exactly n characters
// (runes) with newlines, tabs, CRLF, quotes, backslashes and multi-byte
// characters, shaped like Lazuli's context prompts.
func bigPrompt(n int) string {
	var b strings.Builder
	b.WriteString("<azureal-session-context>\n## User\nfix it — naïve café 日本語 🚀\r\n\n")
	for i := 0; utf8.RuneCountInString(b.String()) < n-100; i++ {
		fmt.Fprintf(&b, "## Assistant\nline %d: ünïcödé ✓ 日本 🚀\tq=\"x\" \\back\\ <tag> &amp;\n\n", i)
	}
	b.WriteString("</azureal-session-context>\n\nnext please")
	s := b.String()
	if pad := n - utf8.RuneCountInString(s); pad > 0 {
		s += strings.Repeat("!", pad)
	}
	return string([]rune(s)[:n])
}

// TestClaudeStdinPrompt checks that `claude -p` with no prompt argument
// reads the prompt from stdin byte-exact: the way to send prompts longer
// than Linux's 128 KiB limit on one argv string.
func TestClaudeStdinPrompt(t *testing.T) {
	claude := NeedCLI(t, "claude")
	prompt := bigPrompt(300_000)
	if len(prompt) <= 128<<10 {
		t.Fatalf("prompt of %d bytes fits in one argument", len(prompt))
	}
	s, dir, env := setup(t, Script{Text("ok")})
	r := runCLI(t, claude, claudeArgs(), env, dir, prompt)
	if r.code != 0 || len(r.find("type", "result", "subtype", "success", "result", "ok")) != 1 {
		t.Fatalf("claude failed\n%.3000s", r.dump())
	}
	reqs := s.Model()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if got := LastUserText(reqs[0]); got != prompt {
		t.Errorf("the last user text block (%d bytes) differs from the %d-byte prompt on stdin", len(got), len(prompt))
	}
}

// TestClaudePromptArgs records how claude 2.1.x combines its prompt
// sources: an argument and stdin are joined with "\n"; a prompt argument
// starting with "-" is taken for an option unless it follows "--"; no
// prompt at all is an error.
func TestClaudePromptArgs(t *testing.T) {
	claude := NeedCLI(t, "claude")
	flags := []string{"-p", "--verbose", "--output-format", "stream-json", "--dangerously-skip-permissions"}
	for _, c := range []struct {
		name   string
		args   []string
		stdin  string
		prompt string // "" when claude must fail before any request
	}{
		{"ArgvAndStdin", claudeArgs("FROM ARGV"), "FROM STDIN", "FROM ARGV\nFROM STDIN"},
		{"DashArgv", claudeArgs("-hello"), "", ""},
		{"DashArgvAfterDashDash", append(flags, "--", "-hello\nworld"), "", "-hello\nworld"},
		{"NoPrompt", claudeArgs(), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir, env := setup(t, Script{Text("ok")})
			r := runCLI(t, claude, c.args, env, dir, c.stdin)
			reqs := s.Model()
			if c.prompt == "" {
				if r.code == 0 || len(reqs) != 0 {
					t.Errorf("exit %d after %d requests, want a failure before any\n%s", r.code, len(reqs), r.dump())
				}
				return
			}
			if r.code != 0 || len(reqs) != 1 {
				t.Fatalf("%d requests\n%s", len(reqs), r.dump())
			}
			if got := LastUserText(reqs[0]); got != c.prompt {
				t.Errorf("prompt sent = %q, want %q", got, c.prompt)
			}
		})
	}
}
