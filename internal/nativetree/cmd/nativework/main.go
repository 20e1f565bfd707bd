// Command nativework writes the native-history workload of the import
// benchmarks (BENCHMARKS.md, "Native import"): a HOME with
// .claude/projects and .codex/sessions built from the shared fixtures.
//
//	go run ./internal/nativetree/cmd/nativework -home DIR [-claude 60 -codex 45]
//	go run ./internal/nativetree/cmd/nativework -home DIR -append ROUND   # a turn appended to 10 Claude files
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/internal/nativetree"
)

func main() {
	home := flag.String("home", "", "folder to write the history under (required; must not exist)")
	src := flag.String("fixtures", "", "the shared transcripts (default: the shared folder's fixtures/transcripts)")
	claude := flag.Int("claude", 60, "copies of each Claude transcript")
	codex := flag.Int("codex", 45, "copies of each Codex rollout")
	appendRound := flag.String("append", "", "append a turn with the word zqmark<ROUND>x<i> to 10 Claude files of an existing workload")
	flag.Parse()
	if *home == "" {
		fmt.Fprintln(os.Stderr, "nativework: -home is required")
		os.Exit(2)
	}
	if *appendRound != "" {
		files, err := nativetree.AppendPrompts(*home, 10, *appendRound)
		if err != nil {
			fmt.Fprintln(os.Stderr, "nativework:", err)
			os.Exit(1)
		}
		fmt.Printf("appended a turn to %d files\n", len(files))
		return
	}
	if *src == "" {
		p, err := fixtures.Path("transcripts")
		if err != nil {
			fmt.Fprintln(os.Stderr, "nativework: no shared fixtures:", err)
			os.Exit(1)
		}
		*src = p
	}
	if _, err := os.Stat(*home); err == nil {
		fmt.Fprintf(os.Stderr, "nativework: %s exists; remove it first\n", *home)
		os.Exit(2)
	}
	_, st, err := nativetree.Workload(*src, *home, nativetree.WorkloadOptions{ClaudeCopies: *claude, CodexCopies: *codex})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nativework:", err)
		os.Exit(1)
	}
	fmt.Printf("%d files, %.1f MB under %s\n", st.Files, float64(st.Bytes)/1e6, *home)
}
