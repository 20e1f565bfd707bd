package export

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestGitHubTokenPrefixes: every GitHub token prefix docs/export.md's secret
// table lists is found by the github-token rule, and a look-alike prefix
// is not.
func TestGitHubTokenPrefixes(t *testing.T) {
	readme, err := os.ReadFile("../docs/export.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for line := range strings.SplitSeq(string(readme), "\n") {
		if strings.HasPrefix(line, "| `github-token`") {
			row = line
		}
	}
	var prefixes []string
	for _, m := range regexp.MustCompile("`(gh[a-z]_|github_pat_)`").FindAllStringSubmatch(row, -1) {
		prefixes = append(prefixes, m[1])
	}
	for _, want := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"} {
		if !slices.Contains(prefixes, want) {
			t.Errorf("docs/export.md's github-token row %q does not list %s", row, want)
		}
	}
	scan := func(text string) []string {
		var ts textScanner
		var got []string
		for _, sp := range ts.scan(text) {
			got = append(got, rules[sp.rule].id+": "+text[sp.start:sp.end])
		}
		return got
	}
	for i, prefix := range prefixes {
		body := fake(uint64(100+i), alphaNum, 36)
		if prefix == "github_pat_" {
			body = fake(uint64(100+i), alphaNum, 22) + "_" + fake(uint64(200+i), alphaNum, 59)
		}
		token := prefix + body
		text := "export GH_AUTH=" + token + "\n"
		if got, want := scan(text), "github-token: "+token; len(got) != 1 || got[0] != want {
			t.Errorf("%s: scan(%q) = %q, want [%q]", prefix, text, got, want)
		}
	}
	// Not a GitHub prefix: nothing is found as a GitHub token.
	for _, prefix := range []string{"ghx_", "gha_", "gh_"} {
		text := "id " + prefix + fake(300, alphaNum, 36) + " done"
		for _, got := range scan(text) {
			if strings.HasPrefix(got, "github-token: ") {
				t.Errorf("%s: scan(%q) found %q", prefix, text, got)
			}
		}
	}
}
