package app

// The window's SQL console runs each query in a child process, `lazuli sql
// --json`, so that what a query allocates is the child's: the child stops
// a query that adds more than 256 MB as `lazuli sql` does, which the
// window cannot do for itself (its other work shares its memory), and
// whatever a query makes never stays in the window's heap.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/insight"
)

// sqlBudget is how long the console lets a query run, as `lazuli sql` does.
const sqlBudget = 10 * time.Second

// maxSQLOutput bounds what the console reads of the child's answer: the
// largest answer it may give (insight.MaxSQLResult) in JSON, with room
// for escapes.
const maxSQLOutput = 3*insight.MaxSQLResult + 1<<20

// sqlChild is the command line that runs `lazuli sql`: this executable.
func sqlChild() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find lazuli's executable for the SQL console: %w", err)
	}
	return []string{exe, "sql"}, nil
}

// runSQLChild runs query over the stores in a `lazuli sql --json` child
// and returns its answer, or its one-line reason for stopping. It returns
// within twice the budget whatever the child does.
func runSQLChild(ctx context.Context, argv, stores []string, query string, limit int) (insight.SQLResult, error) {
	args := append(append([]string(nil), argv[1:]...), "--json", "--limit", strconv.Itoa(limit))
	for _, s := range stores {
		args = append(args, "--store", s)
	}
	args = append(args, "--", query)
	ctx, cancel := context.WithTimeout(ctx, 2*sqlBudget)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.WaitDelay = time.Second
	stdout := &cappedBuffer{max: maxSQLOutput}
	stderr := &cappedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return insight.SQLResult{}, fmt.Errorf("query interrupted after %s", sqlBudget)
	case err != nil:
		return insight.SQLResult{}, childError(stderr.String(), err)
	case stdout.over:
		return insight.SQLResult{}, fmt.Errorf("query stopped: the result is larger than %d MB (LIMIT the rows or pick fewer columns)", insight.MaxSQLResult>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	dec.UseNumber() // numbers print as the child wrote them
	var res insight.SQLResult
	if err := dec.Decode(&res); err != nil {
		return insight.SQLResult{}, fmt.Errorf("read the SQL console's answer: %w", err)
	}
	return res, nil
}

// childError is the child's last line on stderr without its "lazuli sql: "
// prefix, or how it ended when it said nothing.
func childError(stderr string, err error) error {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return fmt.Errorf("the SQL query's process ended: %w", err)
	}
	if rest, ok := strings.CutPrefix(last, "lazuli sql: "); ok {
		last = rest
	}
	return errors.New(consoleMessage(last))
}

// SQLite's words for a write the console does not run, and its result code
// at the end of a message ("… (1)").
// (built on first use, as the module's regular expressions are).
var (
	viewWrite    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cannot modify (\S+) because it is a view`) })
	sqliteCode   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` \(\d+\)$`) })
	readOnlyWord = []string{"attempt to write a readonly database", insight.ErrRefused.Error(), "not authorized"}
)

// consoleMessage is the console's line for the child's error msg: a write
// says that the console is read-only (SQLite's "cannot modify events
// because it is a view (1)" reads as an error of the user's SQL); other
// errors lose SQLite's "SQL logic error: " and result code.
func consoleMessage(msg string) string {
	if m := viewWrite().FindStringSubmatch(msg); m != nil {
		return "the console is read-only: " + m[1] + " can be read with SELECT, not changed"
	}
	for _, w := range readOnlyWord {
		if strings.Contains(msg, w) {
			return "the console is read-only: only SELECT queries run here"
		}
	}
	msg = sqliteCode().ReplaceAllString(msg, "")
	for _, noise := range []string{"sql: ", "SQL logic error: "} { // database/sql's and SQLite's
		msg = strings.TrimPrefix(msg, noise)
	}
	return msg
}

// cappedBuffer keeps at most max bytes and notes that more came.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
