// Command fakemodeld serves the scripted fake model of internal/fakemodel
// until it is killed, for scripts that drive the real window with the real
// agent CLIs (scripts/gui-run.sh). It prepares a HOME for the CLIs
// (claude, codex, gemini, qwen) and writes the environment they need to a
// file of shell export lines.
//
//	fakemodeld -home DIR -env FILE
//
// Conversations follow the "create hello.txt" script: the agent writes
// {{CWD}}/hello.txt with the Write tool (claude),
// then answers. A compaction prompt gets a summary of the right length; a
// chronicle report's prompt gets a short report citing session 1 and a
// session that does not exist (the window marks it).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

func main() {
	home := flag.String("home", "", "HOME folder to prepare for the CLIs")
	envFile := flag.String("env", "", "file to write `export KEY='VALUE'` lines to")
	flag.Parse()
	if *home == "" || *envFile == "" {
		flag.Usage()
		os.Exit(2)
	}
	summary := strings.Repeat("The user asked the agent to create hello.txt in the project, and it did so with the Write tool. ", 30)
	script := fakemodel.Script{
		{Text: "I'll create the file.", Tools: []fakemodel.ToolCall{
			{Name: "Write", Input: map[string]any{"file_path": "{{CWD}}/hello.txt", "content": "hello from the agent\n"}},
		}},
		{Text: "I created **hello.txt** with a greeting."},
	}
	report := "# Tips — written by the agent\n\n" +
		"- **Group the auth work.** The login fix needed a correction after the first answer [S1#19]; " +
		"say up front which cookie names must stay [S1#2].\n" +
		"- **Script the test run.** The same prompt ran the suite twice [S2#1] [S3#1].\n" +
		"- **A session the model made up** [S42#7].\n"
	// Gemini CLI opens its conversations with its <session_context>, Qwen
	// Code with its own: their scripts write hello.txt with their tools.
	geminiScript := fakemodel.Script{
		{Text: "I'll create the file.", Tools: []fakemodel.ToolCall{
			{Name: "write_file", Input: map[string]any{"file_path": "{{CWD}}/hello.txt", "content": "hello from Gemini\n"}},
		}},
		{Text: "I created **hello.txt** with a greeting."},
	}
	srv := fakemodel.New(script, fakemodel.Route{Contains: "<transcript>", Script: fakemodel.Script{{Text: summary}}},
		fakemodel.Route{Contains: "report of Lazuli's chronicle", Script: fakemodel.Script{{Text: report}}},
		fakemodel.Route{Contains: "This is the Gemini CLI", Script: geminiScript})
	defer srv.Close()
	env, err := srv.Home(*home)
	if err != nil {
		log.Fatal(err)
	}
	for _, agentEnv := range []func(*fakemodel.Server, string) ([]string, error){fakemodel.GeminiEnv, fakemodel.QwenEnv} {
		more, err := agentEnv(srv, *home)
		if err != nil {
			log.Fatal(err)
		}
		env = append(env, more...)
	}
	var b strings.Builder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	if err := os.WriteFile(*envFile, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("fakemodeld: serving on %s", srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
}
