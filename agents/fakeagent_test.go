package agents

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/internal/testcache"
	"github.com/lazuli-app/lazuli/permprompt"
)

// The test binary doubles as a fake agent CLI: with LAZULI_FAKE_SCRIPT set
// it plays that script instead of running tests. Script lines are printed
// to stdout, except directives:
//
//	#sleep D          pause for duration D
//	#stderr TEXT      print TEXT on stderr
//	#exit N           exit with code N
//	#hang             block until killed
//	#ignore-term      ignore SIGTERM from now on
//	#child            start a grandchild that holds stdout open and sleeps
//	#bigline N        print a line of N 'x' characters
//	#raw HEX          print raw bytes (for invalid UTF-8)
//	#wait-file P      wait until file P exists
//	#on-term P        write its pid to P.pid; at SIGTERM create P.term, wait
//	                  until file P exists, say so on stderr and exit 0
//	#ask TOOL INPUT   ask Lazuli's permission prompt (the socket of the
//	                  --mcp-config argument) whether TOOL may run with the
//	                  JSON INPUT, and append the answer to LAZULI_FAKE_ASKLOG
//
// The fake records its arguments and stdin in LAZULI_FAKE_RECORD (JSON).
func TestMain(m *testing.M) {
	if script := os.Getenv("LAZULI_FAKE_SCRIPT"); script != "" {
		os.Exit(fakeAgent(script))
	}
	if os.Getenv("LAZULI_FAKE_CHILD") != "" {
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	// The argv tests are written for a user claude lets bypass; the root
	// tests say when they are root.
	runningAsRoot = func() bool { return false }
	os.Exit(testcache.Run(m)) // caches out of the user's folder
}

// fakeRecord is what the fake agent saw.
type fakeRecord struct {
	Args  []string `json:"args"`
	Stdin string   `json:"stdin"`
	Dir   string   `json:"dir"`
}

func fakeAgent(script string) int {
	rec := fakeRecord{Args: os.Args[1:]}
	rec.Dir, _ = os.Getwd()
	if stdinIsData() {
		b, _ := io.ReadAll(os.Stdin)
		rec.Stdin = string(b)
	}
	if p := os.Getenv("LAZULI_FAKE_RECORD"); p != "" {
		b, _ := json.Marshal(rec)
		_ = os.WriteFile(p, b, 0o644)
	}
	f, err := os.Open(script)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer f.Close()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		l := sc.Text()
		cmd, arg, _ := strings.Cut(l, " ")
		switch cmd {
		case "#sleep":
			out.Flush()
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "#stderr":
			out.Flush()
			fmt.Fprintln(os.Stderr, arg)
		case "#exit":
			out.Flush()
			n, _ := strconv.Atoi(arg)
			return n
		case "#hang":
			out.Flush()
			select {}
		case "#ignore-term":
			signal.Ignore(syscall.SIGTERM)
		case "#child":
			out.Flush()
			c := exec.Command(os.Args[0])
			c.Env = append(os.Environ(), "LAZULI_FAKE_SCRIPT=", "LAZULI_FAKE_CHILD=1")
			c.Stdout = os.Stdout
			_ = c.Start()
		case "#bigline":
			n, _ := strconv.Atoi(arg)
			out.WriteString(strings.Repeat("x", n) + "\n")
		case "#raw":
			var b []byte
			fmt.Sscanf(arg, "%x", &b)
			out.Write(append(b, '\n'))
		case "#on-term":
			out.Flush()
			onTerm(arg)
		case "#ask":
			out.Flush()
			tool, input, _ := strings.Cut(arg, " ")
			fakeAsk(tool, input)
		case "#wait-file":
			out.Flush()
			for {
				if _, err := os.Stat(arg); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		default:
			out.WriteString(l + "\n")
		}
	}
	return 0
}

// fakeAsk asks as claude's MCP permission server would, and logs the
// answer (or the error) as a JSON line.
func fakeAsk(tool, input string) {
	socket := ""
	for i, a := range os.Args {
		if a == "--mcp-config" && i+1 < len(os.Args) {
			var cfg struct {
				MCPServers map[string]struct {
					Args []string `json:"args"`
				} `json:"mcpServers"`
			}
			_ = json.Unmarshal([]byte(os.Args[i+1]), &cfg)
			args := cfg.MCPServers[permprompt.ServerName].Args
			for j, x := range args {
				if x == "--socket" && j+1 < len(args) {
					socket = args[j+1]
				}
			}
		}
	}
	resp, err := permprompt.Ask(context.Background(), socket, permprompt.Request{ToolName: tool, Input: json.RawMessage(input)})
	line, _ := json.Marshal(resp)
	if err != nil {
		line, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	f, ferr := os.OpenFile(os.Getenv("LAZULI_FAKE_ASKLOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	f.Write(append(line, '\n'))
}

// onTerm handles SIGTERM as #on-term describes.
func onTerm(p string) {
	_ = os.WriteFile(p+".pid", []byte(strconv.Itoa(os.Getpid())), 0o644)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		_ = os.WriteFile(p+".term", nil, 0o644)
		for {
			if _, err := os.Stat(p); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		fmt.Fprintln(os.Stderr, "exiting after SIGTERM")
		os.Exit(0)
	}()
}

// stdinIsData reports whether stdin is a pipe or file rather than
// /dev/null or a terminal.
func stdinIsData() bool {
	fi, err := os.Stdin.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice == 0
}

// fakeCLI writes script (lines) to a file and returns a Config and an
// environment that make both backends run it, and the record file path.
func fakeCLI(t *testing.T, lines ...string) (Config, []string, string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "script.txt")
	if err := os.WriteFile(script, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "record.json")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "LAZULI_FAKE_SCRIPT="+script, "LAZULI_FAKE_RECORD="+rec,
		"LAZULI_CLAUDE=", "LAZULI_CODEX=")
	return Config{Paths: map[Backend]string{Claude: exe, Codex: exe}, Getenv: func(string) string { return "" }}, env, rec
}

// readRecord returns what the fake agent recorded.
func readRecord(t *testing.T, path string) fakeRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the fake agent left no record: %v", err)
	}
	var r fakeRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
