//go:build !nowindow

// Command lazuli is the home of coding-agent sessions: a desktop window over
// AZUREAL-compatible .azs session stores, and a headless command line.
package main

import (
	"os"

	"github.com/lazuli-app/lazuli/app"
)

func main() {
	if printVersion(os.Args[1:], os.Stdout) {
		return
	}
	app.Version = tomlDetail(fyneApp, "Version")
	os.Exit(app.Main(os.Args[1:]))
}
