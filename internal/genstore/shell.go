package genstore

import (
	"path"
	"strings"
)

// shellRun is one shell command with what it printed.
type shellRun struct {
	command, description, output string
	failed                       bool
}

// shell returns a plausible command for the project and its output: tests,
// builds, git, grep, listings, package managers and linters.
func (p *project) shell(g *textGen) shellRun {
	switch x := g.intn(100); {
	case x < 28:
		return p.testRun(g)
	case x < 38:
		return p.buildRun(g)
	case x < 56:
		return p.gitRun(g)
	case x < 68:
		return p.grepRun(g)
	case x < 78:
		return p.listRun(g)
	case x < 84:
		return p.catRun(g)
	case x < 89:
		return p.installRun(g)
	case x < 95:
		return p.lintRun(g)
	}
	return p.curlRun(g)
}

func (p *project) testRun(g *textGen) shellRun {
	failed := g.chance(0.3)
	var b strings.Builder
	var cmd string
	switch p.lang {
	case langGo:
		pkg := path.Dir(p.file(g))
		cmd = "go test ./" + pkg + "/..."
		if g.chance(0.5) {
			cmd = "go test ./" + pkg + "/ -run '" + p.test(g) + "' -count=1 -v"
		}
		for range g.between(1, 12) {
			b.WriteString("=== RUN   " + p.test(g) + "\n--- PASS: " + p.test(g) + " (0." + g.num(0, 99) + "s)\n")
		}
		if failed {
			t := p.test(g)
			file := strings.TrimSuffix(path.Base(p.file(g)), ".go") + "_test.go"
			b.WriteString("--- FAIL: " + t + " (0." + g.num(0, 99) + "s)\n")
			if g.chance(0.3) {
				b.WriteString("panic: runtime error: invalid memory address or nil pointer dereference [recovered]\n" +
					"[signal SIGSEGV: segmentation violation code=0x1 addr=0x" + g.hex(2) + " pc=0x" + g.hex(6) + "]\n\n" +
					"goroutine " + g.num(5, 90) + " [running]:\n")
				for range g.between(4, 12) {
					f := p.file(g)
					b.WriteString(p.module + "/" + path.Dir(f) + ".(*" + p.typ(g) + ")." + p.ident(g) + "(0xc000" + g.hex(6) + ", 0x" + g.hex(4) + ")\n\t" +
						p.abs(f) + ":" + g.num(10, 900) + " +0x" + g.hex(3) + "\n")
				}
			} else {
				for range g.between(1, 4) {
					b.WriteString("    " + file + ":" + g.num(10, 600) + ": " + p.ident(g) + "() = " + g.num(0, 99) + ", want " + g.num(0, 99) + "\n")
				}
			}
			b.WriteString("FAIL\nFAIL\t" + p.pkgOf(p.file(g)) + "\t0." + g.num(100, 999) + "s\nFAIL")
		} else {
			b.WriteString("PASS\nok  \t" + p.pkgOf(p.file(g)) + "\t" + g.decimal(0.01, 9, 3) + "s")
		}
	case langTS:
		cmd = "npm test -- " + p.file(g)
		if g.chance(0.4) {
			cmd = "npx vitest run " + path.Dir(p.file(g))
		}
		for range g.between(1, 5) {
			b.WriteString(" ✓ " + p.file(g) + " (" + g.num(1, 40) + " tests) " + g.num(3, 900) + "ms\n")
		}
		if failed {
			b.WriteString(" ❯ " + p.file(g) + " (" + g.num(2, 30) + " tests | 1 failed) " + g.num(3, 900) + "ms\n" +
				"   × " + p.test(g) + "\n     → expected " + g.num(0, 99) + " to be " + g.num(0, 99) + "\n\n" +
				" FAIL  " + p.file(g) + " > " + p.test(g) + "\nAssertionError: expected '" + g.word() + "' to equal '" + g.word() + "'\n" +
				" ❯ " + p.file(g) + ":" + g.num(5, 300) + ":" + g.num(2, 40) + "\n\n" +
				" Test Files  1 failed | " + g.num(1, 40) + " passed\n      Tests  1 failed | " + g.num(10, 400) + " passed\n   Duration  " + g.decimal(0.5, 30, 2) + "s")
		} else {
			b.WriteString("\n Test Files  " + g.num(1, 40) + " passed\n      Tests  " + g.num(10, 400) + " passed\n   Duration  " + g.decimal(0.5, 30, 2) + "s")
		}
	case langPython:
		cmd = "pytest " + p.file(g) + " -q"
		if g.chance(0.3) {
			cmd = "python -m pytest -x -k " + p.test(g)
		}
		b.WriteString(strings.Repeat(".", g.between(5, 60)))
		if failed {
			t := p.test(g)
			b.WriteString("F\n=================================== FAILURES ===================================\n" +
				"_________________________ " + t + " _________________________\n\n" +
				"    def " + t + "():\n        " + p.ident(g) + " = make_" + g.noun() + "()\n>       assert " + p.ident(g) + "(" + g.num(0, 9) + ") == " + g.num(0, 99) + "\n" +
				"E       assert " + g.num(0, 99) + " == " + g.num(0, 99) + "\n\n" + p.file(g) + ":" + g.num(5, 400) + ": AssertionError\n" +
				"=========================== short test summary info ============================\n" +
				"FAILED " + p.file(g) + "::" + t + " - assert " + g.num(0, 99) + " == " + g.num(0, 99) + "\n" +
				"1 failed, " + g.num(5, 300) + " passed in " + g.decimal(0.2, 40, 2) + "s")
		} else {
			b.WriteString("\n" + g.num(5, 300) + " passed in " + g.decimal(0.2, 40, 2) + "s")
		}
	default:
		cmd = "cargo test " + g.noun()
		b.WriteString("    Finished `test` profile [unoptimized + debuginfo] target(s) in " + g.decimal(0.5, 60, 2) + "s\n" +
			"     Running unittests src/lib.rs (target/debug/deps/" + p.name + "-" + g.hex(16) + ")\n\nrunning " + g.num(3, 80) + " tests\n")
		for range g.between(2, 15) {
			b.WriteString("test " + g.noun() + "::tests::" + p.test(g) + " ... ok\n")
		}
		if failed {
			t := p.test(g)
			b.WriteString("test " + g.noun() + "::tests::" + t + " ... FAILED\n\nfailures:\n\n---- " + g.noun() + "::tests::" + t + " stdout ----\n" +
				"thread '" + t + "' panicked at " + p.file(g) + ":" + g.num(5, 500) + ":" + g.num(5, 40) + ":\nassertion `left == right` failed\n  left: " + g.num(0, 99) + "\n right: " + g.num(0, 99) + "\n\n" +
				"test result: FAILED. " + g.num(3, 80) + " passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in " + g.decimal(0.01, 5, 2) + "s")
		} else {
			b.WriteString("\ntest result: ok. " + g.num(3, 80) + " passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in " + g.decimal(0.01, 5, 2) + "s")
		}
	}
	return shellRun{command: cmd, description: "Run the " + g.noun() + " tests", output: b.String(), failed: failed}
}

func (p *project) buildRun(g *textGen) shellRun {
	failed := g.chance(0.25)
	var cmd string
	var b strings.Builder
	switch p.lang {
	case langGo:
		cmd = g.pick([]string{"go build ./...", "go vet ./...", "go build -o bin/" + p.name + " ."})
		if failed {
			for range g.between(1, 5) {
				f := p.file(g)
				b.WriteString("# " + p.pkgOf(f) + "\n./" + f + ":" + g.num(5, 600) + ":" + g.num(2, 60) + ": undefined: " + p.ident(g) + "\n")
			}
		}
	case langTS:
		cmd = g.pick([]string{"npm run build", "npx tsc --noEmit", "npm run typecheck"})
		b.WriteString("\n> " + p.module + "@0." + g.num(1, 40) + ".0 build\n> tsc -p tsconfig.json\n\n")
		if failed {
			for range g.between(1, 6) {
				b.WriteString(p.file(g) + "(" + g.num(5, 600) + "," + g.num(2, 60) + "): error TS2322: Type '" + p.typ(g) + "' is not assignable to type '" + p.typ(g) + "'.\n")
			}
			b.WriteString("\nFound " + g.num(1, 6) + " errors in " + g.num(1, 4) + " files.")
		}
	case langPython:
		cmd = g.pick([]string{"python -m mypy " + p.name, "python -m compileall -q " + p.name, "uv run mypy ."})
		if failed {
			for range g.between(1, 6) {
				b.WriteString(p.file(g) + ":" + g.num(5, 600) + ": error: Argument 1 to \"" + p.ident(g) + "\" has incompatible type \"" + p.typ(g) + "\"; expected \"" + p.typ(g) + "\"  [arg-type]\n")
			}
			b.WriteString("Found " + g.num(1, 6) + " errors in " + g.num(1, 4) + " files (checked " + g.num(10, 200) + " source files)")
		} else {
			b.WriteString("Success: no issues found in " + g.num(10, 200) + " source files")
		}
	default:
		cmd = g.pick([]string{"cargo build", "cargo check --all-targets", "cargo build --release"})
		for range g.between(2, 10) {
			b.WriteString("   Compiling " + g.noun() + " v0." + g.num(1, 30) + "." + g.num(0, 9) + "\n")
		}
		if failed {
			b.WriteString("error[E0308]: mismatched types\n  --> " + p.file(g) + ":" + g.num(5, 600) + ":" + g.num(2, 40) + "\n   |\n" +
				g.num(5, 600) + " |     let " + g.noun() + ": " + p.typ(g) + " = " + p.ident(g) + "(&" + g.noun() + ");\n   |\n\n" +
				"error: could not compile `" + p.name + "` (lib) due to 1 previous error")
		} else {
			b.WriteString("    Finished `dev` profile [unoptimized + debuginfo] target(s) in " + g.decimal(0.5, 90, 2) + "s")
		}
	}
	return shellRun{command: cmd, description: "Build the project", output: b.String(), failed: failed}
}

func (p *project) gitRun(g *textGen) shellRun {
	var b strings.Builder
	switch g.intn(5) {
	case 0:
		b.WriteString("On branch " + g.pick(worktrees) + "\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n")
		for range g.between(1, 8) {
			b.WriteString("\tmodified:   " + p.file(g) + "\n")
		}
		if g.chance(0.5) {
			b.WriteString("\nUntracked files:\n\t" + p.file(g) + "\n")
		}
		b.WriteString("\nno changes added to commit (use \"git add\" and/or \"git commit -a\")")
		return shellRun{command: "git status", description: "Show working tree status", output: b.String()}
	case 1:
		n := g.between(1, 9)
		for range n {
			b.WriteString(" " + p.file(g) + " | " + g.num(1, 200) + " " + strings.Repeat("+", g.between(1, 30)) + strings.Repeat("-", g.between(0, 20)) + "\n")
		}
		b.WriteString(" " + itoa(n) + " files changed, " + g.num(1, 900) + " insertions(+), " + g.num(0, 400) + " deletions(-)")
		return shellRun{command: "git diff --stat", description: "Summarize changes", output: b.String()}
	case 2:
		for range g.between(5, 20) {
			b.WriteString(g.hex(7) + " " + g.pick([]string{"fix", "feat", "refactor", "test", "docs", "perf", "chore"}) + "(" + g.noun() + "): " + g.words(g.between(3, 9)) + "\n")
		}
		return shellRun{command: "git log --oneline -20", description: "Recent commits", output: strings.TrimSuffix(b.String(), "\n")}
	case 3:
		f := p.file(g)
		b.WriteString("diff --git a/" + f + " b/" + f + "\nindex " + g.hex(7) + ".." + g.hex(7) + " 100644\n--- a/" + f + "\n+++ b/" + f + "\n")
		b.WriteString(p.hunk(g))
		return shellRun{command: "git diff " + f, description: "Show the diff of " + path.Base(f), output: b.String()}
	}
	msg := g.pick([]string{"fix", "feat", "refactor", "test"}) + ": " + g.words(g.between(3, 9))
	b.WriteString("[" + g.pick(worktrees) + " " + g.hex(7) + "] " + msg + "\n " + g.num(1, 9) + " files changed, " + g.num(1, 300) + " insertions(+), " + g.num(0, 200) + " deletions(-)")
	return shellRun{command: "git add -A && git commit -m \"" + msg + "\"", description: "Commit the change", output: b.String()}
}

// hunk returns one unified diff hunk of project code.
func (p *project) hunk(g *textGen) string {
	var b strings.Builder
	start := g.between(1, 400)
	b.WriteString("@@ -" + itoa(start) + "," + g.num(4, 20) + " +" + itoa(start) + "," + g.num(4, 24) + " @@ func " + p.ident(g) + "\n")
	for _, l := range strings.Split(strings.TrimRight(p.code(g, g.between(4, 24)), "\n"), "\n") {
		switch x := g.intn(10); {
		case x < 2:
			b.WriteString("-" + l + "\n")
		case x < 4:
			b.WriteString("+" + l + "\n")
		default:
			b.WriteString(" " + l + "\n")
		}
	}
	return b.String()
}

func (p *project) grepRun(g *textGen) shellRun {
	id := p.ident(g)
	var b strings.Builder
	n := g.between(0, 25)
	for range n {
		b.WriteString(p.file(g) + ":" + g.num(1, 900) + ":" + strings.TrimSpace(cutLines(p.code(g, 1), 1)) + "\n")
	}
	cmd := "grep -rn \"" + id + "\" " + path.Dir(p.file(g))
	if g.chance(0.5) {
		cmd = "rg -n '" + id + "' --type " + p.lang.fence()
	}
	return shellRun{command: cmd, description: "Find uses of " + id, output: strings.TrimSuffix(b.String(), "\n"), failed: n == 0}
}

func (p *project) listRun(g *textGen) shellRun {
	var b strings.Builder
	dir := path.Dir(p.file(g))
	switch g.intn(3) {
	case 0:
		b.WriteString("total " + g.num(8, 400) + "\n")
		for range g.between(3, 25) {
			b.WriteString("-rw-r--r--  1 " + p.user + " " + p.user + " " + g.num(120, 40000) + " Nov " + g.num(1, 28) + " " + g.num(10, 23) + ":" + g.num(10, 59) + " " + path.Base(p.file(g)) + "\n")
		}
		return shellRun{command: "ls -la " + dir, description: "List " + dir, output: strings.TrimSuffix(b.String(), "\n")}
	case 1:
		for range g.between(3, 40) {
			b.WriteString("./" + p.file(g) + "\n")
		}
		return shellRun{command: "find . -name '*" + p.lang.ext() + "' | head -50", description: "List source files", output: strings.TrimSuffix(b.String(), "\n")}
	}
	total := 0
	for range g.between(2, 12) {
		n := g.between(20, 900)
		total += n
		b.WriteString("   " + itoa(n) + " " + p.file(g) + "\n")
	}
	b.WriteString("  " + itoa(total) + " total")
	return shellRun{command: "wc -l " + dir + "/*" + p.lang.ext(), description: "Count lines", output: b.String()}
}

func (p *project) catRun(g *textGen) shellRun {
	f := p.file(g)
	n := g.between(20, 120)
	cmd := "sed -n '1," + itoa(n) + "p' " + f
	if g.chance(0.4) {
		cmd = "head -" + itoa(n) + " " + f
	}
	return shellRun{command: cmd, description: "Show the start of " + path.Base(f), output: p.sourceFile(g, f, n)}
}

func (p *project) installRun(g *textGen) shellRun {
	switch p.lang {
	case langGo:
		return shellRun{command: "go mod tidy", description: "Tidy modules",
			output: "go: finding module for package " + p.module + "/" + g.noun() + "\ngo: found " + p.module + "/" + g.noun() + " in " + p.module + " v0." + g.num(1, 30) + ".0"}
	case langTS:
		return shellRun{command: "npm install", description: "Install dependencies",
			output: "\nadded " + g.num(1, 400) + " packages, and audited " + g.num(400, 1500) + " packages in " + g.num(1, 40) + "s\n\n" +
				g.num(10, 200) + " packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities"}
	case langPython:
		return shellRun{command: "uv pip install -e '.[dev]'", description: "Install the package",
			output: "Resolved " + g.num(10, 90) + " packages in " + g.num(10, 900) + "ms\nInstalled " + g.num(1, 40) + " packages in " + g.num(10, 900) + "ms"}
	}
	return shellRun{command: "cargo update", description: "Update dependencies",
		output: "    Updating crates.io index\n     Locking " + g.num(1, 30) + " packages to latest compatible versions"}
}

func (p *project) lintRun(g *textGen) shellRun {
	var b strings.Builder
	failed := g.chance(0.5)
	cmd := map[language]string{langGo: "staticcheck ./...", langTS: "npx eslint src", langPython: "ruff check .", langRust: "cargo clippy -- -D warnings"}[p.lang]
	if failed {
		for range g.between(1, 8) {
			f := p.file(g)
			switch p.lang {
			case langGo:
				b.WriteString(f + ":" + g.num(5, 600) + ":" + g.num(2, 40) + ": " + g.pick([]string{"SA4006", "ST1003", "S1002", "SA1019", "U1000"}) + " " + g.words(g.between(4, 10)) + "\n")
			case langTS:
				b.WriteString(f + "\n  " + g.num(5, 600) + ":" + g.num(2, 40) + "  error  '" + p.ident(g) + "' is defined but never used  @typescript-eslint/no-unused-vars\n")
			case langPython:
				b.WriteString(f + ":" + g.num(5, 600) + ":" + g.num(2, 40) + ": " + g.pick([]string{"F401", "E501", "B008", "UP007"}) + " " + g.words(g.between(3, 8)) + "\n")
			default:
				b.WriteString("warning: " + g.words(g.between(3, 8)) + "\n  --> " + f + ":" + g.num(5, 600) + ":" + g.num(2, 40) + "\n")
			}
		}
		b.WriteString("Found " + g.num(1, 8) + " problems")
	}
	return shellRun{command: cmd, description: "Lint", output: b.String(), failed: failed}
}

func (p *project) curlRun(g *textGen) shellRun {
	route := "/api/v1/" + g.noun() + "s/" + g.num(1, 9999)
	status := g.pick([]string{"200 OK", "200 OK", "200 OK", "404 Not Found", "500 Internal Server Error"})
	out := "HTTP/1.1 " + status + "\ncontent-type: application/json\n\n{\"" + g.noun() + "\":{\"id\":" + g.num(1, 9999) +
		",\"" + p.field(g) + "\":\"" + g.words(3) + "\",\"" + p.field(g) + "\":" + g.num(0, 999) + "},\"elapsed_ms\":" + g.num(1, 900) + "}"
	return shellRun{command: "curl -si localhost:" + g.num(3000, 9000) + route, description: "Call the endpoint", output: out,
		failed: !strings.HasPrefix(status, "200")}
}
