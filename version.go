package main

import (
	_ "embed"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// fyneApp is FyneApp.toml, the app's metadata: its name and version.
//
//go:embed FyneApp.toml
var fyneApp string

// commit is the git commit the binary was built from, set by `make
// install` and `make package` (-ldflags -X main.commit=…); without it the
// Go toolchain's VCS stamp is used, if any.
var commit string

// tomlDetail reads key = value from FyneApp.toml's [Details] table.
func tomlDetail(toml, key string) string {
	in := false
	for line := range strings.Lines(toml) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			in = line == "[Details]"
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if in && ok && strings.TrimSpace(k) == key {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// versionText is what `lazuli --version` prints.
func versionText() string {
	rev, modified := commit, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && rev == "":
				rev = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				modified = " (modified)"
			}
		}
	}
	if rev == "" {
		rev, modified = "unknown", ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return fmt.Sprintf("%s %s (build %s)\n%s %s/%s, commit %s%s\n",
		tomlDetail(fyneApp, "Name"), tomlDetail(fyneApp, "Version"), tomlDetail(fyneApp, "Build"),
		runtime.Version(), runtime.GOOS, runtime.GOARCH, rev, modified)
}

// printVersion prints the version for `lazuli --version` (or -version)
// and reports whether args asked for it.
func printVersion(args []string, w io.Writer) bool {
	if len(args) != 1 || (args[0] != "--version" && args[0] != "-version") {
		return false
	}
	fmt.Fprint(w, versionText())
	return true
}
