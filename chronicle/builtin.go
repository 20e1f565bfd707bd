package chronicle

import (
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/display"
)

// Builtin writes the report from the facts alone, offline: the same facts
// always give the same Markdown. Citations are left as [S12#340] for
// Render.
func Builtin(f *Facts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — %s\n\n", f.Report.Title(), f.Since)
	if f.Nothing != "" {
		b.WriteString(f.Nothing + "\n")
		return b.String()
	}
	switch f.Report {
	case Standup:
		writeStandup(&b, f)
	case Tips, Improve:
		writeFindings(&b, f)
	}
	return b.String()
}

func cites(cs []Cite) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return strings.Join(out, " ")
}

func writeStandup(b *strings.Builder, f *Facts) {
	for _, w := range f.Worktrees {
		fmt.Fprintf(b, "## Worktree %s\n\n", strings.NewReplacer("*", "∗", "_", "\\_", "`", "'").Replace(w.Worktree))
		for _, s := range w.Sessions {
			name := fmt.Sprintf("S%d", s.Cite.Session)
			if s.Name != "" {
				name += " " + quote(s.Name, 60)
			}
			cost := fmt.Sprintf("$%.2f", s.CostUSD)
			if s.CostEstimated {
				cost = "~" + cost
			}
			fmt.Fprintf(b, "### %s %s\n\n", name, s.Cite)
			fmt.Fprintf(b, "%s %s · %s · %s · started %s\n\n", s.Outcome, s.OutcomeCite,
				display.DurationBadge(s.DurationMS), cost, s.Created)
			for _, p := range s.Prompts {
				fmt.Fprintf(b, "- %s %s\n", quote(p.Text, 200), p.Cite)
			}
			if s.MorePrompts > 0 {
				fmt.Fprintf(b, "- … and %s more\n", display.Plural(s.MorePrompts, "prompt"))
			}
			if len(s.Files) > 0 {
				b.WriteString("\nChanged:\n\n")
				for _, fc := range s.Files {
					fmt.Fprintf(b, "- %s %s ×%d %s\n", code(fc.Path), fc.Action, fc.Count, fc.Cite)
				}
				if s.MoreFiles > 0 {
					fmt.Fprintf(b, "- … and %d more\n", s.MoreFiles)
				}
			}
			if len(s.Refs) > 0 {
				b.WriteString("\nRefs:\n\n")
				for _, r := range s.Refs {
					v := code(r.Value)
					if r.URL != "" {
						v = fmt.Sprintf("[%s](%s)", strings.ReplaceAll(r.Value, "]", ")"), r.URL)
					}
					fmt.Fprintf(b, "- %s %s %s\n", r.Kind, v, r.Cite)
				}
				if s.MoreRefs > 0 {
					fmt.Fprintf(b, "- … and %d more\n", s.MoreRefs)
				}
			}
			b.WriteString("\n")
		}
	}
}

// sections are the headings and advice of each kind of finding, in
// report order.
var sections = []struct{ kind, heading, advice string }{
	{FindCompacted, "Long sessions that compacted many times",
		"Each compaction replaces detail with a summary. Start a fresh session per task, or hand over with a short written plan."},
	{FindAbandoned, "Sessions abandoned after errors",
		"When a session ends in errors, a short follow-up (\"what failed and why?\") often saves starting over."},
	{FindRepeated, "Prompts sent again and again",
		"A prompt typed often belongs in a slash command, a script or the instruction file."},
	{FindSlowShort, "Long waits for a one-line answer",
		"For quick questions, a smaller model or a narrower prompt answers sooner."},
	{FindModel, "Models and what they were used for", ""},
	{FindCostly, "Cost outliers",
		"These sessions cost several times the median: check whether they re-read large files or ran long loops."},
	{FindToolErrors, "Tool errors", ""},
	{FindFailingCmd, "Commands that failed repeatedly", ""},
	{FindRetried, "Failed calls retried unchanged", ""},
	{FindBackForth, "Files edited back and forth", ""},
	{FindCorrection, "User corrections", ""},
	{FindInterrupt, "Interrupted turns", ""},
}

func writeFindings(b *strings.Builder, f *Facts) {
	for _, sec := range sections {
		var list []Finding
		for _, fd := range f.Findings {
			if fd.Kind == sec.kind {
				list = append(list, fd)
			}
		}
		if len(list) == 0 {
			continue
		}
		fmt.Fprintf(b, "## %s\n\n", sec.heading)
		if sec.advice != "" {
			b.WriteString(sec.advice + "\n\n")
		}
		for _, fd := range list {
			fmt.Fprintf(b, "- %s %s\n", fd.Text, cites(fd.Cites))
		}
		if n := list[0].Count; (sec.kind == FindCorrection || sec.kind == FindInterrupt || sec.kind == FindAbandoned) && n > len(list) {
			fmt.Fprintf(b, "- … %d in all; the newest %d are listed\n", n, len(list))
		}
		b.WriteString("\n")
	}
	if len(f.Proposals) == 0 {
		return
	}
	b.WriteString("## Proposed instructions\n\n")
	b.WriteString("Lines for the project's instruction files, each with the sessions that motivate it. Lazuli does not edit these files: copy the lines, or apply the diff below (`git apply`).\n\n")
	for _, p := range f.Proposals {
		fmt.Fprintf(b, "- %s: %s %s\n", code(p.File), strings.TrimPrefix(p.Line, "- "), cites(p.Cites))
	}
	if f.Diff != "" {
		b.WriteString("\n```diff\n" + f.Diff + "```\n")
	}
}
