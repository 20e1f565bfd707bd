// Command nativework writes the native-history workload of the import
// benchmarks (BENCHMARKS.md, "Native import"): a HOME with
// .claude/projects and .codex/sessions built from the shared fixtures.
//
//	go run ./internal/nativetree/cmd/nativework -home /work/bench-native [-claude 60 -codex 45]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/lazuli-app/lazuli/internal/nativetree"
)

func main() {
	home := flag.String("home", "", "folder to write the history under (required; must not exist)")
	src := flag.String("fixtures", "../shared/fixtures/transcripts", "the shared transcripts")
	claude := flag.Int("claude", 60, "copies of each Claude transcript")
	codex := flag.Int("codex", 45, "copies of each Codex rollout")
	flag.Parse()
	if *home == "" {
		fmt.Fprintln(os.Stderr, "nativework: -home is required")
		os.Exit(2)
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
