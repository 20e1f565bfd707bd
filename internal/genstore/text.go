package genstore

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// zipfTable draws words with Zipf–Mandelbrot frequencies (the k-th word
// about 1/(k+2.7)^s as often) in constant time: each word fills a share of
// a lookup table proportional to its probability, at least one slot. With
// s = 1 the most common word makes about 6 % of a text, as "the" does in
// English.
type zipfTable struct {
	words []string
	slots []uint16
}

func newZipfTable(words []string, s float64) *zipfTable {
	const size = 1 << 15
	weights := make([]float64, len(words))
	sum := 0.0
	for i := range words {
		weights[i] = 1 / math.Pow(float64(i)+2.7, s)
		sum += weights[i]
	}
	t := &zipfTable{words: words, slots: make([]uint16, 0, size+len(words))}
	for i, w := range weights {
		n := max(1, int(math.Round(w/sum*size)))
		for range n {
			t.slots = append(t.slots, uint16(i))
		}
	}
	return t
}

func (t *zipfTable) draw(r *rand.Rand) string {
	return t.words[t.slots[r.IntN(len(t.slots))]]
}

// Read-only lookup tables shared by every generator.
var (
	proseTable = newZipfTable(proseWords, 1.0)
	nounTable  = newZipfTable(techNouns, 0.9)
	verbTable  = newZipfTable(techVerbs, 0.9)
)

// textGen generates text from one random stream. It is not safe for
// concurrent use; each session has its own.
type textGen struct {
	r *rand.Rand
}

func newTextGen(seed uint64) *textGen {
	return &textGen{r: rand.New(rand.NewPCG(seed, 0x6c617a756c69))}
}

func (g *textGen) intn(n int) int { return g.r.IntN(n) }

// between returns a number in [lo, hi].
func (g *textGen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *textGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *textGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

// logNormal returns a heavy-tailed positive number with the given median;
// sigma is the spread of its logarithm.
func (g *textGen) logNormal(median, sigma float64) float64 {
	return median * math.Exp(sigma*g.r.NormFloat64())
}

// sized returns a log-normal length clamped to [lo, hi].
func (g *textGen) sized(median, sigma float64, lo, hi int) int {
	return min(hi, max(lo, int(g.logNormal(median, sigma))))
}

func (g *textGen) word() string { return proseTable.draw(g.r) }
func (g *textGen) noun() string { return nounTable.draw(g.r) }
func (g *textGen) verb() string { return verbTable.draw(g.r) }

func (g *textGen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

func (g *textGen) alnum(n int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(len(digits))]
	}
	return string(b)
}

func (g *textGen) num(lo, hi int) string { return strconv.Itoa(g.between(lo, hi)) }

// decimal returns a number with the given digits after the point.
func (g *textGen) decimal(lo, hi float64, digits int) string {
	return strconv.FormatFloat(lo+g.r.Float64()*(hi-lo), 'f', digits, 64)
}

// words returns n prose words separated by spaces.
func (g *textGen) words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.word())
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// sentence writes one sentence of prose about p: words with the session's
// identifiers, paths and numbers mixed in.
func (g *textGen) sentence(b *strings.Builder, p *project) {
	n := g.sized(13, 0.45, 4, 40)
	prev := ""
	for i := range n {
		if i > 0 {
			if g.chance(0.06) && i < n-1 {
				b.WriteByte(',')
			}
			b.WriteByte(' ')
		}
		switch x := g.r.IntN(100); {
		case x < 6:
			b.WriteString("`" + p.ident(g) + "`")
		case x < 8:
			b.WriteString("`" + p.file(g) + "`")
		case x < 10:
			b.WriteString(g.num(0, 5000))
		case x < 12:
			b.WriteString(g.noun())
		default:
			w := g.word()
			if w == prev {
				w = g.word()
			}
			prev = w
			if i == 0 {
				w = upperFirst(w)
			}
			b.WriteString(w)
		}
	}
	switch x := g.r.IntN(20); {
	case x == 0:
		b.WriteByte('?')
	case x == 1:
		b.WriteByte(':')
	default:
		b.WriteByte('.')
	}
}

// paragraph writes 1–6 sentences.
func (g *textGen) paragraph(b *strings.Builder, p *project) {
	n := g.between(1, 6)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		g.sentence(b, p)
	}
}

// prose returns paragraphs of about size bytes.
func (g *textGen) prose(p *project, size int) string {
	var b strings.Builder
	for b.Len() < size {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		g.paragraph(&b, p)
	}
	return b.String()
}

// markdown returns an assistant reply of about size bytes: paragraphs,
// headings, bullet and numbered lists, code blocks and the odd table.
func (g *textGen) markdown(p *project, size int) string {
	var b strings.Builder
	if size > 1200 && g.chance(0.5) {
		b.WriteString("## " + upperFirst(g.words(g.between(2, 6))) + "\n\n")
	}
	g.paragraph(&b, p)
	for b.Len() < size {
		b.WriteString("\n\n")
		switch x := g.r.IntN(100); {
		case x < 35:
			g.paragraph(&b, p)
		case x < 55:
			g.bullets(&b, p)
		case x < 65:
			g.numbered(&b, p)
		case x < 85:
			b.WriteString(p.codeBlock(g, g.sized(12, 0.6, 3, 80)))
		case x < 92:
			b.WriteString("### " + upperFirst(g.words(g.between(2, 5))))
		case x < 96:
			g.table(&b, p)
		default:
			b.WriteString("> ")
			g.sentence(&b, p)
		}
	}
	return b.String()
}

func (g *textGen) bullets(b *strings.Builder, p *project) {
	n := g.between(2, 7)
	for i := range n {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- ")
		if g.chance(0.3) {
			b.WriteString("**" + upperFirst(g.words(g.between(1, 3))) + "**: ")
		}
		if g.chance(0.3) {
			b.WriteString("`" + p.file(g) + "`: ")
		}
		g.sentence(b, p)
	}
}

func (g *textGen) numbered(b *strings.Builder, p *project) {
	n := g.between(2, 6)
	for i := range n {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(i+1) + ". ")
		g.sentence(b, p)
	}
}

func (g *textGen) table(b *strings.Builder, p *project) {
	b.WriteString("| " + g.word() + " | " + g.noun() + " | " + g.word() + " |\n|---|---|---|")
	for range g.between(2, 6) {
		b.WriteString("\n| `" + p.ident(g) + "` | " + g.num(0, 999) + " | " + g.words(g.between(1, 5)) + " |")
	}
}

// withNeedle inserts needle into text at a sentence boundary, as a short
// sentence of its own.
func (g *textGen) withNeedle(text, needle string) string {
	if needle == "" {
		return text
	}
	frames := []string{"I also saw %s in the output.", "This looks related to %s.",
		"See %s for the earlier report.", "The log mentions %s again.", "(%s)"}
	s := strings.Replace(g.pick(frames), "%s", needle, 1)
	cut := strings.Index(text, ". ")
	if cut < 0 || g.chance(0.3) {
		return text + " " + s
	}
	return text[:cut+2] + s + " " + text[cut+2:]
}

func itoa(n int) string { return strconv.Itoa(n) }

// jsonObject writes a JSON object with its keys in the order they are
// added, as agents send tool inputs.
type jsonObject struct{ b []byte }

func (o *jsonObject) key(k string) {
	if o.b == nil {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = codec.AppendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *jsonObject) str(k, v string) *jsonObject {
	o.key(k)
	o.b = codec.AppendJSONString(o.b, v)
	return o
}

func (o *jsonObject) num(k string, v int) *jsonObject {
	o.key(k)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
	return o
}

func (o *jsonObject) boolean(k string, v bool) *jsonObject {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
	return o
}

// raw adds a value that is already JSON.
func (o *jsonObject) raw(k string, v []byte) *jsonObject {
	o.key(k)
	o.b = append(o.b, v...)
	return o
}

func (o *jsonObject) bytes() []byte {
	if o.b == nil {
		return []byte("{}")
	}
	return append(o.b, '}')
}

// thirdPerson returns a verb's third person singular: "gets", "flushes",
// "applies".
func thirdPerson(v string) string {
	switch {
	case strings.HasSuffix(v, "sh"), strings.HasSuffix(v, "ch"), strings.HasSuffix(v, "ss"), strings.HasSuffix(v, "x"):
		return v + "es"
	case strings.HasSuffix(v, "y") && len(v) > 1 && !strings.ContainsRune("aeiou", rune(v[len(v)-2])):
		return v[:len(v)-1] + "ies"
	}
	return v + "s"
}

// gerund returns a verb's -ing form: "making", "running", "reading".
func gerund(v string) string {
	const vowels = "aeiou"
	n := len(v)
	switch {
	case n > 2 && v[n-1] == 'e' && v[n-2] != 'e':
		return v[:n-1] + "ing"
	case n >= 3 && n <= 4 && !strings.ContainsRune(vowels+"wxy", rune(v[n-1])) &&
		strings.ContainsRune(vowels, rune(v[n-2])) && !strings.ContainsRune(vowels, rune(v[n-3])):
		return v + v[n-1:] + "ing"
	}
	return v + "ing"
}
