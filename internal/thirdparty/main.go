// Command thirdparty writes the third-party notices of one build of Lazuli:
// for every module the build links (and Go's own standard library), its
// path, version, licence type and the full text of its licence files, as
// go-licenses does, but from the module cache alone (no network).
//
//	thirdparty [-tags TAGS] [-o FILE] [PACKAGE]
//
// The build is described as for go build: GOOS, GOARCH and CGO_ENABLED from
// the environment, TAGS as -tags (default package: the module's root, ".").
// `make release` and `make deb` run it for each archive. A module without a
// licence file, or with one it cannot name, is an error: a new dependency
// is looked at before it ships.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

func main() {
	tags := flag.String("tags", "", "build tags of the build, as go build -tags")
	out := flag.String("o", "", "write the notices to this file (default: standard output)")
	flag.Parse()
	pkg := "."
	if flag.NArg() > 1 {
		fmt.Fprintln(os.Stderr, "usage: thirdparty [-tags TAGS] [-o FILE] [PACKAGE]")
		os.Exit(2)
	}
	if flag.NArg() == 1 {
		pkg = flag.Arg(0)
	}
	if err := run(*tags, pkg, *out); err != nil {
		fmt.Fprintf(os.Stderr, "thirdparty: %v\n", err)
		os.Exit(1)
	}
}

func run(tags, pkg, out string) error {
	mods, err := Modules(tags, pkg)
	if err != nil {
		return err
	}
	goroot, err := goEnv("GOROOT")
	if err != nil {
		return err
	}
	std := Module{Path: "Go standard library and runtime", Version: goVersion(goroot), Dir: goroot}
	notices, err := Collect(append([]Module{std}, mods...))
	if err != nil {
		return err
	}
	var w io.Writer = os.Stdout
	var f *os.File
	if out != "" {
		if f, err = os.Create(out); err != nil {
			return fmt.Errorf("create notices: %w", err)
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	Write(bw, notices)
	err = bw.Flush()
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("write notices: %w", err)
	}
	return nil
}

// Module is one module a build links: its path, version and folder in the
// module cache.
type Module struct {
	Path, Version, Dir string
}

// Notice is a module with its licence: the type (an SPDX expression) and
// the text of every licence file in the module's root folder.
type Notice struct {
	Module
	Licence string
	Files   []string // names, in the order of Text
	Text    []string
}

// Modules lists the modules other than the main one that the packages of
// pkg (and their dependencies) belong to, for the build given by tags and
// the environment (GOOS, GOARCH, CGO_ENABLED), sorted by path. It runs
// go list with GOPROXY=off and GOFLAGS=-mod=readonly: what is not in the
// module cache is an error, not a download.
func Modules(tags, pkg string) ([]Module, error) {
	cmd := exec.Command("go", "list", "-deps", "-tags", tags, "-json=Module", pkg)
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w: %s", pkg, err, strings.TrimSpace(stderr.String()))
	}
	seen := map[string]Module{}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var p struct {
			Module *struct {
				Path, Version, Dir string
				Main               bool
				Replace            *struct{ Path, Version, Dir string }
			}
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read go list: %w", err)
		}
		m := p.Module
		if m == nil || m.Main {
			continue // the standard library, or Lazuli itself
		}
		mod := Module{Path: m.Path, Version: m.Version, Dir: m.Dir}
		if r := m.Replace; r != nil {
			mod.Version, mod.Dir = r.Version, r.Dir
		}
		seen[mod.Path] = mod
	}
	mods := make([]Module, 0, len(seen))
	for _, m := range seen {
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b Module) int { return strings.Compare(a.Path, b.Path) })
	return mods, nil
}

// licenceFile matches the names of licence files in a module's root.
var licenceFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|unlicense|notice)([-._].*)?$`)

// Collect reads each module's licence files and names its licence.
func Collect(mods []Module) ([]Notice, error) {
	var notices []Notice
	for _, m := range mods {
		entries, err := os.ReadDir(m.Dir)
		if err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Path, err)
		}
		n := Notice{Module: m}
		for _, e := range entries {
			if e.IsDir() || !licenceFile.MatchString(e.Name()) {
				continue
			}
			text, err := os.ReadFile(filepath.Join(m.Dir, e.Name()))
			if err != nil {
				return nil, fmt.Errorf("module %s: %w", m.Path, err)
			}
			n.Files = append(n.Files, e.Name())
			n.Text = append(n.Text, string(text))
		}
		if len(n.Files) == 0 {
			return nil, fmt.Errorf("module %s %s: no licence file in %s", m.Path, m.Version, m.Dir)
		}
		if n.Licence, err = Classify(n.Text[primary(n.Files)]); err != nil {
			return nil, fmt.Errorf("module %s %s, %s: %w", m.Path, m.Version, n.Files[primary(n.Files)], err)
		}
		notices = append(notices, n)
	}
	return notices, nil
}

// primary is the index of the file that says the module's licence: LICENSE
// (or LICENCE, COPYING) itself before LICENSE-THIRD-PARTY and the like.
func primary(files []string) int {
	for i, f := range files {
		base := strings.ToLower(strings.TrimSuffix(f, filepath.Ext(f)))
		if base == "license" || base == "licence" || base == "copying" || base == "unlicense" {
			return i
		}
	}
	return 0
}

var spdx = regexp.MustCompile(`(?i)SPDX-License-Identifier:\s*([^\n]+)`)

// licences are the phrases that name a licence, in the order they are
// tried; the first that a text contains (lowercased, spaces collapsed)
// names it. A text may hold more than one (MCP's is Apache-2.0 with MIT for
// contributions not yet relicensed).
var licences = []struct {
	id      string
	phrases []string
}{
	{"Apache-2.0", []string{"apache license", "version 2.0"}},
	{"MPL-2.0", []string{"mozilla public license", "2.0"}},
	{"MIT", []string{"permission is hereby granted, free of charge"}},
	{"MIT", []string{"licensed under the mit license"}},
	{"ISC", []string{"permission to use, copy, modify, and/or distribute this software for any purpose with or without fee"}},
	{"BSD-3-Clause", []string{"redistribution and use in source and binary forms", "neither the name"}},
	{"BSD-3-Clause", []string{"redistribution and use in source and binary forms", "names of its contributors may not be used"}},
	{"BSD-2-Clause", []string{"redistribution and use in source and binary forms"}},
	{"Unlicense", []string{"this is free and unencumbered software released into the public domain"}},
}

// Classify names the licence of a licence file's text as an SPDX
// expression: its SPDX-License-Identifier line when it has one, else the
// licences whose phrases it contains (joined by AND).
func Classify(text string) (string, error) {
	if m := spdx.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1]), nil
	}
	norm := strings.ToLower(strings.Join(strings.Fields(text), " "))
	var ids []string
	for _, l := range licences {
		all := true
		for _, p := range l.phrases {
			all = all && strings.Contains(norm, p)
		}
		if all && !slices.Contains(ids, l.id) && !(strings.HasPrefix(l.id, "BSD") && slices.ContainsFunc(ids, isBSD)) {
			ids = append(ids, l.id)
		}
	}
	if len(ids) == 0 {
		return "", errors.New("unknown licence text")
	}
	return strings.Join(ids, " AND "), nil
}

func isBSD(id string) bool { return strings.HasPrefix(id, "BSD") }

// Write writes the notices: a table of modules, versions and licences,
// then each module's licence texts.
func Write(w io.Writer, notices []Notice) {
	fmt.Fprintln(w, "THIRD-PARTY NOTICES")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Lazuli is built with the following modules, each under its own licence,")
	fmt.Fprintln(w, "whose full text follows the list (generated from the module graph of this build).")
	fmt.Fprintln(w)
	width := 0
	for _, n := range notices {
		width = max(width, len(n.Path))
	}
	for _, n := range notices {
		fmt.Fprintf(w, "  %-*s  %-40s  %s\n", width, n.Path, n.Version, n.Licence)
	}
	for _, n := range notices {
		for i, name := range n.Files {
			fmt.Fprintf(w, "\n%s\n%s %s — %s (%s)\n%s\n\n", strings.Repeat("=", 78), n.Path, n.Version, name, n.Licence, strings.Repeat("=", 78))
			fmt.Fprint(w, strings.TrimRight(n.Text[i], "\n")+"\n")
		}
	}
}

func goEnv(key string) (string, error) {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", key, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goVersion is the version of the Go toolchain at goroot (its VERSION
// file's first line).
func goVersion(goroot string) string {
	data, err := os.ReadFile(filepath.Join(goroot, "VERSION"))
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line)
}
