package genstore

import (
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// codexTool returns one Codex tool call and its result as Lazuli's Codex
// parsers store them: shell commands as Bash, apply_patch and file changes
// as Edit (the patch or unified diff kept whole), update_plan as is.
func (s *sessionGen) codexTool() []codec.Event {
	g := s.g
	switch x := g.intn(100); {
	case x < 58:
		return s.codexShell()
	case x < 82:
		return s.applyPatch()
	case x < 92:
		return s.fileChange()
	}
	return s.updatePlan()
}

// codexShell is a shell command; rollouts (call_ ids, a "workdir" and the
// "Exit code / Wall time" header) and exec streams (item_ ids, output with
// an exit code line on failure) are both common.
func (s *sessionGen) codexShell() []codec.Event {
	g, p := s.g, s.p
	run := p.shell(g)
	if g.chance(0.5) {
		id := "item_" + itoa(g.between(0, 400))
		in := (&jsonObject{}).str("command", "/bin/bash -lc "+shellQuote(run.command))
		out := s.maybeNeedle(run.output, 0.3)
		if run.failed {
			out = strings.TrimRight(out, "\n") + "\nExit code: 1"
		}
		return pair(id, "Bash", nil, in.bytes(), out, run.failed)
	}
	id := "call_" + g.alnum(24)
	in := (&jsonObject{}).str("command", run.command).str("workdir", p.root).num("timeout_ms", g.pick2(10000, 120000))
	code := "0"
	if run.failed {
		code = "1"
	}
	out := "Exit code: " + code + "\nWall time: " + g.decimal(0, 30, 1) + " seconds\nOutput:\n" + s.maybeNeedle(run.output, 0.3)
	wd := p.root
	return pair(id, "Bash", &wd, in.bytes(), out, run.failed)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *sessionGen) patchText(rel string) string {
	g := s.g
	var b strings.Builder
	if g.chance(0.15) {
		b.WriteString("*** Begin Patch\n*** Add File: " + rel + "\n")
		for line := range strings.SplitSeq(strings.TrimRight(s.p.sourceFile(g, rel, g.sized(40, 0.7, 4, 300)), "\n"), "\n") {
			b.WriteString("+" + line + "\n")
		}
		b.WriteString("*** End Patch")
		return b.String()
	}
	b.WriteString("*** Begin Patch\n*** Update File: " + rel + "\n")
	for range g.between(1, 3) {
		old, updated := s.editPair()
		b.WriteString("@@ " + firstLine(old) + "\n")
		for line := range strings.SplitSeq(old, "\n") {
			b.WriteString("-" + line + "\n")
		}
		for line := range strings.SplitSeq(updated, "\n") {
			b.WriteString("+" + line + "\n")
		}
	}
	b.WriteString("*** End Patch")
	return b.String()
}

func (s *sessionGen) applyPatch() []codec.Event {
	g, p := s.g, s.p
	id := "call_" + g.alnum(24)
	rel := p.file(g)
	in := (&jsonObject{}).str("patch", s.patchText(rel))
	if g.chance(0.05) {
		return pair(id, "Edit", &rel, in.bytes(), "patch rejected: hunk did not apply cleanly to "+rel, true)
	}
	out := "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM " + rel
	return pair(id, "Edit", &rel, in.bytes(), out, false)
}

func (s *sessionGen) fileChange() []codec.Event {
	g, p := s.g, s.p
	rel := p.file(g)
	abs := p.abs(rel)
	id := "item_" + itoa(g.between(0, 400)) + "-" + abs
	var diff strings.Builder
	diff.WriteString("--- a/" + rel + "\n+++ b/" + rel + "\n")
	for range g.between(1, 3) {
		diff.WriteString(p.hunk(g))
	}
	in := (&jsonObject{}).str("file_path", abs).str("kind", "update").str("unified_diff", diff.String())
	return pair(id, "Edit", &abs, in.bytes(), "File update: "+abs, false)
}

func (s *sessionGen) updatePlan() []codec.Event {
	g := s.g
	id := "call_" + g.alnum(24)
	var steps []byte
	for i := range g.between(2, 6) {
		o := (&jsonObject{}).str("step", upperFirst(g.verb())+" "+g.words(g.between(2, 6))).
			str("status", g.pick([]string{"pending", "in_progress", "completed"}))
		if i > 0 {
			steps = append(steps, ',')
		}
		steps = append(steps, o.bytes()...)
	}
	in := (&jsonObject{}).str("explanation", upperFirst(g.words(g.between(4, 12)))).raw("plan", append(append([]byte{'['}, steps...), ']'))
	return pair(id, "update_plan", nil, in.bytes(), "Plan updated", false)
}
