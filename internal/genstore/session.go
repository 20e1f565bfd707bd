package genstore

import (
	"strings"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// sizes are the median sizes, in bytes or lines, of what a session writes.
// Each session scales them by its own factor: some people write long
// prompts, some agents long replies.
type sizes struct {
	prompt    float64 // user prompt
	note      float64 // a short assistant remark between tool calls
	reply     float64 // the assistant's answer at the end of a turn
	editLines float64 // lines replaced by an edit
	tools     float64 // tool calls per turn
}

// baseSizes are tuned so that 1,000,000 events make about 1 GB of store.
var baseSizes = sizes{prompt: 900, note: 700, reply: 8000, editLines: 80, tools: 5}

// pendingCompaction is a compaction to store after the events it covers.
type pendingCompaction struct {
	afterSeq int64
	summary  string
}

// charMark is the char_len of one stored event.
type charMark struct{ seq, chars int64 }

// sessionGen generates the events of one session, turn by turn, and decides
// where it is compacted, as Lazuli does: after a turn that leaves 400,000
// characters or more since the latest compaction, everything before the
// third-newest prompt (else the second, else the newest) is summarized.
// It is not safe for concurrent use.
type sessionGen struct {
	g     *textGen
	p     *project
	plan  *sessionPlan
	size  sizes
	codex bool
	model string

	seq      int64      // seq of the last event generated
	chars    int64      // char_len since the latest compaction
	marks    []charMark // events after the latest compaction
	prompts  []int64    // seqs of prompts after the latest compaction
	turns    int
	counts   map[string]NeedleCount
	compacts []pendingCompaction
}

func newSessionGen(plan *sessionPlan) *sessionGen {
	g := newTextGen(plan.seed)
	s := &sessionGen{g: g, plan: plan, codex: plan.codex, counts: make(map[string]NeedleCount)}
	s.p = newProject(g, plan.lang)
	f := g.logNormal(1, 0.35)
	s.size = sizes{
		prompt: baseSizes.prompt * g.logNormal(1, 0.4), note: baseSizes.note * f,
		reply: baseSizes.reply * f, editLines: baseSizes.editLines * g.logNormal(1, 0.3),
		tools: baseSizes.tools * g.logNormal(1, 0.3),
	}
	if s.codex {
		s.model = g.pick(codexModels)
	} else {
		s.model = g.pick(claudeModels)
	}
	return s
}

// chunk returns the next n events (whole turns, the last one shortened to
// fit) and the compactions to store once they are.
func (s *sessionGen) chunk(n int) ([]codec.Event, []pendingCompaction) {
	evs := make([]codec.Event, 0, n)
	s.compacts = nil
	for len(evs) < n {
		turn := s.turn(n - len(evs))
		for _, e := range turn {
			s.account(e)
		}
		evs = append(evs, turn...)
		s.maybeCompact()
	}
	return evs, s.compacts
}

// account records a generated event's seq and char_len, and which needles
// it still holds once stored (compaction may cut them out of a result).
func (s *sessionGen) account(e codec.Event) {
	s.seq++
	c := codec.CompactEvent(e)
	n := codec.CharLen(c)
	s.chars += n
	s.marks = append(s.marks, charMark{s.seq, n})
	if e.Kind == codec.KindUserMessage {
		s.prompts = append(s.prompts, s.seq)
	}
	if e.Kind == codec.KindAssistantText || e.Kind == codec.KindUserMessage || e.Kind == codec.KindToolResult {
		for _, nd := range Needles {
			if strings.Contains(c.Content, nd.Text) || strings.Contains(c.Text, nd.Text) {
				cnt := s.counts[nd.Text]
				cnt.Events++
				if e.Kind != codec.KindToolResult {
					cnt.Messages++
				}
				s.counts[nd.Text] = cnt
			}
		}
	}
}

// maybeCompact compacts the session when it is over the threshold, as the
// app does after a turn (now and then the compaction fails and is retried
// after a later turn).
func (s *sessionGen) maybeCompact() {
	if s.chars < store.CompactionThreshold || s.g.chance(0.05) {
		return
	}
	var boundary int64 = -1
	for keep := 3; keep >= 1 && boundary < 0; keep-- {
		if len(s.prompts) > keep {
			boundary = s.prompts[len(s.prompts)-keep] - 1
		}
	}
	if boundary < 0 {
		return
	}
	s.compacts = append(s.compacts, pendingCompaction{afterSeq: boundary, summary: s.summary()})
	i := 0
	for i < len(s.marks) && s.marks[i].seq <= boundary {
		s.chars -= s.marks[i].chars
		i++
	}
	s.marks = append(s.marks[:0], s.marks[i:]...)
	j := 0
	for j < len(s.prompts) && s.prompts[j] <= boundary {
		j++
	}
	s.prompts = append(s.prompts[:0], s.prompts[j:]...)
}

// summary is a compaction summary of 2,000 to 4,000 characters.
func (s *sessionGen) summary() string {
	g, p := s.g, s.p
	var b strings.Builder
	b.WriteString("## Summary of the conversation so far\n\n")
	g.paragraph(&b, p)
	b.WriteString("\n\n### Files touched\n")
	for range g.between(3, 9) {
		b.WriteString("- `" + p.file(g) + "`: ")
		g.sentence(&b, p)
		b.WriteByte('\n')
	}
	b.WriteString("\n### Decisions\n")
	target := g.between(2000, 3900)
	for b.Len() < target {
		b.WriteString("- ")
		g.sentence(&b, p)
		b.WriteByte('\n')
	}
	out := b.String()
	if len(out) > 4000 {
		out = out[:4000]
	}
	return strings.TrimRight(out, " \n")
}

// maybeNeedle plants a needle in text with the needles' rate times weight.
func (s *sessionGen) maybeNeedle(text string, weight float64) string {
	g := s.g
	if !g.chance(needleRate * weight) {
		return text
	}
	x := g.r.Float64() * needleRate
	for _, n := range Needles {
		if x -= n.Rate; n.Rate > 0 && x < 0 {
			return g.withNeedle(text, n.Text)
		}
	}
	return text
}

// prompt is a user message: a request, sometimes with pasted output.
func (s *sessionGen) prompt() string {
	g, p := s.g, s.p
	var b strings.Builder
	if s.turns == 0 && len(s.plan.rare) > 0 {
		b.WriteString("Before anything else: " + strings.Join(s.plan.rare, ", ") + " came up again. ")
	}
	size := g.sized(s.size.prompt, 1.2, 8, 40000)
	for b.Len() < size {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		g.sentence(&b, p)
	}
	if g.chance(0.2) {
		b.WriteString("\n\n```\n" + strings.TrimSpace(p.shell(g).output) + "\n```")
	}
	return s.maybeNeedle(b.String(), 1)
}

// note is a short remark between tool calls.
func (s *sessionGen) note() string {
	return s.maybeNeedle(s.g.prose(s.p, s.g.sized(s.size.note, 1.0, 15, 8000)), 0.5)
}

// reply is the assistant's markdown answer at the end of a turn.
func (s *sessionGen) reply() string {
	return s.maybeNeedle(s.g.markdown(s.p, s.g.sized(s.size.reply, 1.1, 40, 60000)), 1)
}

// tool returns a tool call with its result.
func (s *sessionGen) tool() []codec.Event {
	if s.codex {
		return s.codexTool()
	}
	return s.claudeTool()
}

// turn returns one prompt-to-Complete turn of at most budget events.
func (s *sessionGen) turn(budget int) []codec.Event {
	g := s.g
	defer func() { s.turns++ }()
	switch budget {
	case 1:
		return []codec.Event{codec.UserMessage(s.prompt())}
	case 2:
		return []codec.Event{codec.UserMessage(s.prompt()), codec.AssistantText(s.reply())}
	case 3:
		return []codec.Event{codec.UserMessage(s.prompt()), codec.AssistantText(s.reply()), s.complete()}
	}
	var head []codec.Event
	if g.chance(0.02) {
		s.model = s.otherModel()
		head = append(head, codec.ModelSwitch(s.model))
	}
	if g.chance(0.02) {
		head = append(head, codec.Command(g.pick(slashCommands)))
	}
	head = append(head, codec.UserMessage(s.prompt()))
	if s.codex || g.chance(0.9) || s.turns == 0 {
		head = append(head, codec.Init(s.p.root, s.model))
	}
	if !s.codex && g.chance(0.06) {
		head = append(head, codec.Hook(g.pick(hookNames), g.words(g.between(1, 12))))
	}
	if !s.codex && g.chance(0.03) {
		head = append(head, codec.Plan("Plan", g.markdown(s.p, g.sized(900, 0.6, 100, 6000))))
	}
	tail := []codec.Event{codec.AssistantText(s.reply())}
	if !g.chance(0.02) { // the rest were stopped or crashed without a result
		tail = append(tail, s.complete())
	}
	room := budget - len(head) - len(tail)
	if room < 0 {
		return append(head[:0], codec.UserMessage(s.prompt()), codec.AssistantText(s.reply()), s.complete())[:min(budget, 3)]
	}
	body := make([]codec.Event, 0, 2*int(s.size.tools)+4)
	want := g.sized(s.size.tools, 0.9, 0, 80)
	for range want {
		var seg []codec.Event
		if g.chance(0.5) {
			seg = append(seg, codec.AssistantText(s.note()))
		}
		seg = append(seg, s.tool()...)
		if g.chance(0.003) {
			seg = append(seg, codec.Unit(codec.KindCompacting), codec.Unit(codec.KindCompacted))
		}
		if len(body)+len(seg) > room {
			break
		}
		body = append(body, seg...)
	}
	out := append(head, body...)
	return append(out, tail...)
}

func (s *sessionGen) otherModel() string {
	if s.codex {
		return s.g.pick(codexModels)
	}
	return s.g.pick(claudeModels)
}

// complete ends a turn: mostly successful, with a duration and (for Claude)
// a cost.
func (s *sessionGen) complete() codec.Event {
	g := s.g
	ms := uint64(g.logNormal(45_000, 1.0))
	cost := 0.0
	if !s.codex {
		cost = float64(int(g.logNormal(0.18, 1.0)*10000)) / 10000
	}
	return codec.Complete(!g.chance(0.07), ms, cost)
}
