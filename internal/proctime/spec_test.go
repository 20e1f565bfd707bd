package proctime

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseSpecs(t *testing.T) {
	tests := []struct {
		name string
		args string // split on spaces; "~" stands for a space inside a word
		want string // each spec as kind|program|row|command|env|ready|stdout, joined by " ; "
		err  string // a part of the error, when one is wanted
	}{
		{name: "two commands",
			args: "lazuli:version /bin/lazuli --version :: agentsview:version /bin/av version",
			want: "process|lazuli|version|/bin/lazuli --version|[]||  ;  process|agentsview|version|/bin/av version|[]||"},
		{name: "ready, env and stdout",
			args: "av:first~sync +ready=listening +env=HOME=/tmp/h +env=A=b=c /bin/av serve :: lz:count +stdout=/tmp/o lz search x",
			want: "ready|av|first sync|/bin/av serve|[HOME=/tmp/h A=b=c]|listening|  ;  process|lz|count|lz search x|[]||/tmp/o"},
		{name: "HTTP GET",
			args: "av:search http://127.0.0.1:8080/api/v1/search?q=error",
			want: "http|av|search|GET http://127.0.0.1:8080/api/v1/search?q=error|[]||"},
		{name: "a URL among arguments is a command",
			args: "c:get curl http://x/",
			want: "process|c|get|curl http://x/|[]||"},
		{name: "row keeps its colons", args: "lz:search:~x /bin/true", want: "process|lz|search: x|/bin/true|[]||"},
		{name: "no label", args: "/bin/true", err: "not PROGRAM:ROW"},
		{name: "empty program", args: ":row /bin/true", err: "not PROGRAM:ROW"},
		{name: "no command", args: "lz:version +env=A=b", err: "no command"},
		{name: "empty spec between separators", args: "a:b /bin/true :: :: c:d /bin/true", err: "spec 2: empty"},
		{name: "trailing separator", args: "a:b /bin/true ::", err: "spec 2: empty"},
		{name: "bad regexp", args: "a:b +ready=( x", err: "not a regular expression"},
		{name: "empty regexp", args: "a:b +ready= x", err: "not a regular expression"},
		{name: "env without value", args: "a:b +env=HOME x", err: "not KEY=VALUE"},
		{name: "unknown option", args: "a:b +retry=3 x", err: "unknown option"},
		{name: "HTTP GET with options", args: "a:b +env=A=b http://x/", err: "takes no +options"},
		{name: "HTTP GET with arguments", args: "a:b http://x/ -v", err: "no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args []string
			for _, w := range strings.Fields(tt.args) {
				args = append(args, strings.ReplaceAll(w, "~", " "))
			}
			specs, err := ParseSpecs(args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseSpecs(%q) = %v, %v; want an error with %q", tt.args, specs, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSpecs(%q): %v", tt.args, err)
			}
			var got []string
			for _, s := range specs {
				ready := ""
				if s.Ready != nil {
					ready = s.Ready.String()
				}
				got = append(got, fmt.Sprintf("%s|%s|%s|%s|%v|%s|%s", s.Kind(), s.Program, s.Row, s.Command(), s.Env, ready, s.Stdout))
			}
			want := strings.Split(tt.want, "  ;  ")
			if !slices.Equal(got, want) {
				t.Errorf("ParseSpecs(%q) = %q, want %q", tt.args, got, want)
			}
		})
	}
}

func TestSpecCommandQuotes(t *testing.T) {
	s := Spec{Args: []string{"lazuli", "search", "two words", "", "$x"}}
	want := `lazuli search "two words" "" "$x"`
	if got := s.Command(); got != want {
		t.Errorf("Command() = %s, want %s", got, want)
	}
}
