//go:build nowindow

package main

import (
	"os"

	"github.com/lazuli-app/lazuli/cli"
	"github.com/lazuli-app/lazuli/launch"
)

// main is the headless build's: go build -tags nowindow (CGO_ENABLED=0
// works) gives a lazuli without Fyne that runs every command itself and
// hands the window over to lazuli-window beside it (package launch).
func main() {
	args := os.Args[1:]
	if printVersion(args, os.Stdout) {
		return
	}
	if len(args) > 0 && cli.IsCommand(args[0]) {
		os.Exit(cli.Main(args))
	}
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	os.Exit(launch.Window(self, args, os.Stderr))
}
