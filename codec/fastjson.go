package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// DecodeEventFast decodes the compact, canonical JSON that serde_json (and
// EncodeEventJSON) write, about ten times faster than DecodeEventJSON, which
// loading large sessions needs. It accepts only that canonical form: no
// whitespace, known fields only, each once, no surrogate \u escapes. For
// anything else it returns false and the caller falls back to
// DecodeEventJSON, which has the final say, so both always agree on what
// this accepts (see TestDecodeEventFastAgrees). The payload must be valid
// UTF-8 (the load path checks it first). js is not modified.
func DecodeEventFast(js []byte) (Event, bool) {
	return decodeEventInPlace(bytes.Clone(js))
}

// decodeEventInPlace is decodeEventFast without copies: the event's strings
// and Input point into js, and escaped strings are decoded in place, so js
// must not be used for anything else afterwards, nor changed while the
// event lives. On failure js may be partly rewritten: a caller that falls
// back to DecodeEventJSON must pass it the original bytes.
func decodeEventInPlace(js []byte) (Event, bool) {
	return decodeEventIn(js, nil)
}

// decodeEventIn is decodeEventInPlace that takes FilePath's string from
// out when out is not nil.
func decodeEventIn(js []byte, out *Arena) (Event, bool) {
	var e Event
	ok := DecodeEventTo(js, out, &e)
	return e, ok
}

// DecodeEventTo is decodeEventIn that decodes into *e, which must be the
// zero Event; it is left zero on failure. Decoding into its final place
// saves copying the Event, which is large, for every row of a load.
func DecodeEventTo(js []byte, out *Arena, e *Event) bool {
	p := fastParser{b: js, out: out}
	if len(js) > 0 && js[0] == '"' {
		name, ok := p.raw()
		if k := InternKind(name); ok && p.i == len(js) && k.IsUnit() {
			e.Kind = k
			return true
		}
		return false
	}
	if !p.byte('{') {
		return false
	}
	name, ok := p.raw()
	if !ok || !p.byte(':') || !p.byte('{') {
		return false
	}
	e.Kind = InternKind(name)
	if !e.Kind.Valid() || e.Kind.IsUnit() || !p.fields(e) || !p.byte('}') || p.i != len(js) {
		*e = Event{}
		return false
	}
	return true
}

// fastParser reads canonical compact JSON from b at i.
type fastParser struct {
	b   []byte
	i   int
	out *Arena // where FilePath strings live; nil: allocate each
}

func (p *fastParser) byte(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// fields reads the body of a struct variant after its '{', through its '}',
// and reports whether every required field was present exactly once.
func (p *fastParser) fields(e *Event) bool {
	var seen uint16
	for first := true; !p.byte('}'); first = false {
		if !first && !p.byte(',') {
			return false
		}
		key, ok := p.str() // points into b: no copy
		if !ok || !p.byte(':') {
			return false
		}
		bit, ok := p.field(e, key)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	return seen&^fPath == requiredFields(e.Kind)
}

// Field bits for fields().
const (
	fA    uint16 = 1 << iota // first string field
	fB                       // second string field
	fPath                    // file_path (optional)
	fC                       // third field
	fD                       // fourth field
)

// requiredFields are the bits fields() must have seen, per variant
// (file_path is optional and ignored here).
func requiredFields(k Kind) uint16 {
	switch k {
	case KindUserMessage, KindCommand, KindAssistantText, KindModelSwitch:
		return fA
	case KindInit, KindHook, KindPlan:
		return fA | fB
	case KindToolCall, KindComplete:
		return fA | fB | fC
	case KindToolResult:
		return fA | fB | fC | fD
	}
	return 0
}

// field reads the value of key into e and returns the key's bit.
func (p *fastParser) field(e *Event, key string) (uint16, bool) {
	switch e.Kind {
	case KindInit:
		return p.strField(key, "cwd", &e.CWD, fA, "model", &e.Model, fB)
	case KindHook:
		return p.strField(key, "name", &e.Name, fA, "output", &e.Output, fB)
	case KindUserMessage:
		return p.strField(key, "content", &e.Content, fA, "", nil, 0)
	case KindCommand:
		return p.strField(key, "name", &e.Name, fA, "", nil, 0)
	case KindPlan:
		return p.strField(key, "name", &e.Name, fA, "content", &e.Content, fB)
	case KindAssistantText:
		return p.strField(key, "text", &e.Text, fA, "", nil, 0)
	case KindModelSwitch:
		return p.strField(key, "model", &e.Model, fA, "", nil, 0)
	case KindToolCall:
		return p.toolCallField(e, key)
	case KindToolResult:
		return p.toolResultField(e, key)
	case KindComplete:
		return p.completeField(e, key)
	}
	return 0, false
}

// strField reads a string into *a or *b depending on key.
func (p *fastParser) strField(key, ka string, a *string, ba uint16, kb string, b *string, bb uint16) (uint16, bool) {
	var ok bool
	switch key {
	case ka:
		*a, ok = p.str()
		return ba, ok
	case kb:
		if b != nil {
			*b, ok = p.str()
			return bb, ok
		}
	}
	return 0, false
}

func (p *fastParser) toolCallField(e *Event, key string) (uint16, bool) {
	switch key {
	case "tool_use_id", "tool_name", "file_path":
		return p.toolIDField(e, key)
	case "input":
		start := p.i
		if !p.value(0) {
			return 0, false
		}
		e.Input = json.RawMessage(p.b[start:p.i:p.i])
		return fC, true
	}
	return 0, false
}

func (p *fastParser) toolResultField(e *Event, key string) (uint16, bool) {
	var ok bool
	switch key {
	case "tool_use_id", "tool_name", "file_path":
		return p.toolIDField(e, key)
	case "content":
		e.Content, ok = p.str()
		return fC, ok
	case "is_error":
		e.IsError, ok = p.boolean()
		return fD, ok
	}
	return 0, false
}

// toolIDField reads the fields ToolCall and ToolResult share.
func (p *fastParser) toolIDField(e *Event, key string) (uint16, bool) {
	var ok bool
	switch key {
	case "tool_use_id":
		e.ToolUseID, ok = p.str()
		return fA, ok
	case "tool_name":
		e.ToolName, ok = p.str()
		return fB, ok
	}
	if p.literal("null") {
		return fPath, true
	}
	s, ok := p.str()
	e.FilePath = p.out.newString(s)
	return fPath, ok
}

func (p *fastParser) completeField(e *Event, key string) (uint16, bool) {
	var ok bool
	switch key {
	case "success":
		e.Success, ok = p.boolean()
		return fA, ok
	case "duration_ms":
		e.DurationMS, ok = p.uint()
		return fB, ok
	case "cost_usd":
		e.CostUSD, ok = p.float()
		return fC, ok
	}
	return 0, false
}

// str reads a string literal, returning a string that points into b. It
// gives up on control characters, invalid escapes and \u escapes of
// surrogates (which encoding/json replaces).
func (p *fastParser) str() (string, bool) {
	b, ok := p.raw()
	if !ok || len(b) == 0 {
		return "", ok
	}
	// b is never written again (see decodeEventInPlace), so the string
	// can share its bytes.
	return unsafe.String(&b[0], len(b)), true
}

// raw reads a string literal and returns its decoded bytes, which lie in
// b: escapes are decoded in place.
func (p *fastParser) raw() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	p.i = PlainEnd(p.b, p.i)
	switch {
	case p.i == len(p.b) || p.b[p.i] < 0x20:
		return nil, false
	case p.b[p.i] == '"':
		p.i++
		return p.b[start : p.i-1], true
	}
	return p.rawEscaped(start)
}

// Masks for PlainEnd, which tests eight bytes at a time.
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = ones * '"'
	slashs = ones * '\\'
)

// PlainEnd returns the index of the first byte from i on that ends a run of
// plain JSON string bytes: a quote, a backslash or a control character;
// len(b) if there is none. Escapes and quotes are rare in the long texts of
// tool results, so it tests eight bytes at a time: x-ones & ^x & highs
// flags the zero bytes of x, and its lowest flag is exact (borrows only run
// upwards). The transcript parsers (agents/parse) scan with it too.
func PlainEnd(b []byte, i int) int { return plainRun(b, i, 0) }

// PlainASCIIEnd is PlainEnd that stops at a byte of 0x80 or more too: it
// returns the end of a run of printable ASCII other than quote and
// backslash, which a string's decoder copies as it is.
func PlainASCIIEnd(b []byte, i int) int { return plainRun(b, i, highs) }

// plainRun is PlainEnd that also stops at the bytes whose high bit stop
// (0 or highs) keeps.
func plainRun(b []byte, i int, stop uint64) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^quotes, x^slashs
		m := (q-ones)&^q | (s-ones)&^s | (x-ones*0x20)&^x | x&stop
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 && (stop == 0 || b[i] < 0x80); i++ {
	}
	return i
}

// rawEscaped decodes a string literal that starts at start and has an
// escape at p.i, in place: the decoded text is never longer than the
// literal, so writing at w never overtakes reading at p.i.
func (p *fastParser) rawEscaped(start int) ([]byte, bool) {
	w := p.i
	for p.i < len(p.b) {
		run := PlainEnd(p.b, p.i)
		w += copy(p.b[w:], p.b[p.i:run])
		p.i = run
		switch {
		case p.i == len(p.b) || p.b[p.i] < 0x20:
			return nil, false
		case p.b[p.i] == '"':
			p.i++
			return p.b[start:w], true
		}
		if p.i+1 >= len(p.b) {
			return nil, false
		}
		esc := p.b[p.i+1]
		p.i += 2
		switch esc {
		case '"', '\\', '/':
			p.b[w] = esc
		case 'b':
			p.b[w] = '\b'
		case 'f':
			p.b[w] = '\f'
		case 'n':
			p.b[w] = '\n'
		case 'r':
			p.b[w] = '\r'
		case 't':
			p.b[w] = '\t'
		case 'u':
			r, ok := p.hex4()
			if !ok || (r >= 0xD800 && r < 0xE000) {
				return nil, false
			}
			w += utf8.EncodeRune(p.b[w:], r) - 1 // 6 bytes read, at most 3 written
		default:
			return nil, false
		}
		w++
	}
	return nil, false
}

// hex4 reads the four hex digits of a \u escape.
func (p *fastParser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// literal consumes lit if it is next.
func (p *fastParser) literal(lit string) bool {
	if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

func (p *fastParser) boolean() (bool, bool) {
	if p.literal("true") {
		return true, true
	}
	return false, p.literal("false")
}

// uint reads a non-negative JSON integer, as DecodeEventJSON's duration_ms.
func (p *fastParser) uint() (uint64, bool) {
	start := p.i
	if !p.number() {
		return 0, false
	}
	n, err := strconv.ParseUint(unsafe.String(&p.b[start], p.i-start), 10, 64)
	return n, err == nil
}

// float reads any JSON number as a float64 (not out of range).
func (p *fastParser) float() (float64, bool) {
	start := p.i
	if !p.number() {
		return 0, false
	}
	f, err := ParseSerdeFloat(unsafe.String(&p.b[start], p.i-start)) // as AZUREAL reads it
	return f, err == nil
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *fastParser) number() bool {
	p.byte('-')
	switch {
	case p.byte('0'):
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return false
	}
	if p.byte('.') && p.digits() == 0 {
		return false
	}
	if p.byte('e') || p.byte('E') {
		if !p.byte('+') {
			p.byte('-')
		}
		if p.digits() == 0 {
			return false
		}
	}
	return true
}

// digits consumes [0-9]* and returns how many.
func (p *fastParser) digits() int {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// value consumes any compact JSON value, checking its syntax.
func (p *fastParser) value(depth int) bool {
	if p.i >= len(p.b) || depth > 1000 {
		return false
	}
	switch p.b[p.i] {
	case '{':
		p.i++
		if p.byte('}') {
			return true
		}
		for {
			if !p.skipStr() || !p.byte(':') || !p.value(depth+1) {
				return false
			}
			if !p.byte(',') {
				return p.byte('}')
			}
		}
	case '[':
		p.i++
		if p.byte(']') {
			return true
		}
		for {
			if !p.value(depth + 1) {
				return false
			}
			if !p.byte(',') {
				return p.byte(']')
			}
		}
	case '"':
		return p.skipStr()
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	}
	return p.number()
}

// skipStr consumes a string literal without decoding it, checking its
// escapes as encoding/json does (any \u escape is valid syntax).
func (p *fastParser) skipStr() bool {
	if !p.byte('"') {
		return false
	}
	for p.i < len(p.b) {
		p.i = PlainEnd(p.b, p.i)
		if p.i == len(p.b) {
			return false
		}
		c := p.b[p.i]
		p.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c != '\\':
			continue
		}
		if p.i >= len(p.b) {
			return false
		}
		esc := p.b[p.i]
		p.i++
		switch esc {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if _, ok := p.hex4(); !ok {
				return false
			}
		default:
			return false
		}
	}
	return false
}
