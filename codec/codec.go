package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// MaxEventSize is the largest decoded event payload Lazuli accepts, in bytes.
// It bounds the memory a hostile or corrupted file can make a reader use.
const MaxEventSize = 64 << 20

// ErrEventTooLarge reports an event payload larger than MaxEventSize.
var ErrEventTooLarge = errors.New("event payload too large")

// EncodeEventJSON returns e as serde_json serializes AZUREAL's DisplayEvent:
// externally tagged, fields in declaration order, compact, file_path null
// rather than omitted, duration_ms an integer and cost_usd a finite float.
func EncodeEventJSON(e Event) ([]byte, error) {
	return appendEventJSON(make([]byte, 0, 64+len(e.Content)+len(e.Text)+len(e.Input)), e, false)
}

// EncodeCompacted encodes an event CompactEvent returned, with its char_len.
// CompactEvent already leaves a ToolCall input in serde's compact form, so
// it is written as it is instead of being re-encoded.
func EncodeCompacted(c Event) ([]byte, int64, error) {
	js, err := appendEventJSON(make([]byte, 0, 64+len(c.Content)+len(c.Text)+len(c.Input)), c, true)
	if err != nil {
		return nil, 0, err
	}
	if c.Kind == KindToolCall {
		n := len(c.Input)
		if n == 0 {
			n = len("null")
		}
		return js, int64(len(c.ToolName) + n), nil
	}
	return js, CharLen(c), nil
}

// appendEventJSON appends e's serde JSON; with serdeInput set, a ToolCall's
// Input is trusted to be serde's compact form already.
func appendEventJSON(b []byte, e Event, serdeInput bool) ([]byte, error) {
	if !e.Kind.Valid() && e.Kind != KindThinking && e.Kind != KindRunFailure {
		return nil, fmt.Errorf("encode event: unknown kind %q", e.Kind)
	}
	if e.Kind.IsUnit() {
		return AppendJSONString(b, string(e.Kind)), nil
	}
	b = append(b, `{"`...)
	b = append(b, e.Kind...)
	b = append(b, `":{`...)
	field := func(name string, first bool) {
		if !first {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
	}
	str := func(name, v string, first bool) {
		field(name, first)
		b = AppendJSONString(b, v)
	}
	filePath := func() {
		field("file_path", false)
		if e.FilePath == nil {
			b = append(b, "null"...)
		} else {
			b = AppendJSONString(b, *e.FilePath)
		}
	}
	switch e.Kind {
	case KindInit:
		str("cwd", e.CWD, true)
		str("model", e.Model, false)
	case KindHook:
		str("name", e.Name, true)
		str("output", e.Output, false)
	case KindUserMessage:
		str("content", e.Content, true)
	case KindCommand:
		str("name", e.Name, true)
	case KindPlan:
		str("name", e.Name, true)
		str("content", e.Content, false)
	case KindAssistantText, KindThinking: // Thinking: Lazuli's shape, never in events
		str("text", e.Text, true)
	case KindToolCall:
		str("tool_use_id", e.ToolUseID, true)
		str("tool_name", e.ToolName, false)
		filePath()
		field("input", false)
		switch {
		case len(bytes.TrimSpace(e.Input)) == 0:
			b = append(b, "null"...)
		case serdeInput:
			b = append(b, e.Input...)
		default:
			var err error
			if b, err = appendSerdeValue(b, e.Input); err != nil {
				return nil, fmt.Errorf("encode %s input: %w", e.ToolName, err)
			}
		}
	case KindToolResult:
		str("tool_use_id", e.ToolUseID, true)
		str("tool_name", e.ToolName, false)
		filePath()
		str("content", e.Content, false)
		field("is_error", false)
		b = strconv.AppendBool(b, e.IsError)
	case KindComplete:
		field("success", true)
		b = strconv.AppendBool(b, e.Success)
		field("duration_ms", false)
		b = strconv.AppendUint(b, e.DurationMS, 10)
		field("cost_usd", false)
		cost := e.CostUSD
		if math.IsNaN(cost) || math.IsInf(cost, 0) {
			cost = 0 // serde would write null, which AZUREAL cannot read back
		}
		b = appendSerdeFloat(b, cost)
	case KindModelSwitch:
		str("model", e.Model, true)
	}
	return append(b, '}', '}'), nil
}

// MarshalJSON encodes e in AZUREAL's serde shape.
func (e Event) MarshalJSON() ([]byte, error) { return EncodeEventJSON(e) }

// UnmarshalJSON decodes e with AZUREAL's tolerance (see DecodeEventJSON).
func (e *Event) UnmarshalJSON(data []byte) error {
	ev, err := DecodeEventJSON(data)
	if err != nil {
		return err
	}
	*e = ev
	return nil
}

// DecodeEventJSON decodes a stored DisplayEvent, accepting exactly what
// AZUREAL's serde deserializer accepts: unknown fields are ignored, a missing
// file_path is null, any other missing or mistyped field is an error,
// duration_ms must be a non-negative integer and cost_usd a number.
func DecodeEventJSON(data []byte) (Event, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return Event{}, errors.New("decode event: empty payload")
	}
	if data[0] == '"' {
		var name string
		if err := json.Unmarshal(data, &name); err != nil {
			return Event{}, fmt.Errorf("decode event: %w", err)
		}
		if k := Kind(name); k.IsUnit() {
			return Event{Kind: k}, nil
		}
		return Event{}, fmt.Errorf("decode event: %q is not a unit variant", name)
	}
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(data, &outer); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	if len(outer) != 1 {
		return Event{}, fmt.Errorf("decode event: want one variant, got %d keys", len(outer))
	}
	for name, body := range outer {
		return decodeVariant(Kind(name), body)
	}
	panic("unreachable")
}

func decodeVariant(k Kind, body json.RawMessage) (Event, error) {
	if !k.Valid() {
		return Event{}, fmt.Errorf("decode event: unknown variant %q", k)
	}
	if k.IsUnit() {
		if string(bytes.TrimSpace(body)) != "null" {
			return Event{}, fmt.Errorf("decode event: unit variant %s has a body", k)
		}
		return Event{Kind: k}, nil
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(body, &f); err != nil || f == nil {
		return Event{}, fmt.Errorf("decode event: %s body is not an object", k)
	}
	r := fieldReader{kind: k, f: f}
	e := Event{Kind: k}
	switch k {
	case KindInit:
		e.CWD, e.Model = r.str("cwd"), r.str("model")
	case KindHook:
		e.Name, e.Output = r.str("name"), r.str("output")
	case KindUserMessage:
		e.Content = r.str("content")
	case KindCommand:
		e.Name = r.str("name")
	case KindPlan:
		e.Name, e.Content = r.str("name"), r.str("content")
	case KindAssistantText:
		e.Text = r.str("text")
	case KindToolCall:
		e.ToolUseID, e.ToolName, e.FilePath = r.str("tool_use_id"), r.str("tool_name"), r.optStr("file_path")
		e.Input = r.raw("input")
	case KindToolResult:
		e.ToolUseID, e.ToolName, e.FilePath = r.str("tool_use_id"), r.str("tool_name"), r.optStr("file_path")
		e.Content, e.IsError = r.str("content"), r.boolean("is_error")
	case KindComplete:
		e.Success, e.DurationMS, e.CostUSD = r.boolean("success"), r.uint("duration_ms"), r.float("cost_usd")
	case KindModelSwitch:
		e.Model = r.str("model")
	}
	if r.err != nil {
		return Event{}, r.err
	}
	return e, nil
}

// fieldReader reads typed fields of one variant body, keeping the first error.
type fieldReader struct {
	kind Kind
	f    map[string]json.RawMessage
	err  error
}

func (r *fieldReader) fail(name, why string) {
	if r.err == nil {
		r.err = fmt.Errorf("decode event: %s.%s %s", r.kind, name, why)
	}
}

func (r *fieldReader) Get(name string) (json.RawMessage, bool) {
	v, ok := r.f[name]
	if !ok {
		r.fail(name, "is missing")
	}
	return v, ok
}

func (r *fieldReader) str(name string) string {
	v, ok := r.Get(name)
	if !ok {
		return ""
	}
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		r.fail(name, "is not a string")
	}
	return s
}

func (r *fieldReader) optStr(name string) *string {
	v, ok := r.f[name]
	if !ok || string(v) == "null" {
		return nil
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		r.fail(name, "is not a string or null")
		return nil
	}
	return &s
}

func (r *fieldReader) raw(name string) json.RawMessage {
	v, _ := r.Get(name)
	return v
}

func (r *fieldReader) boolean(name string) bool {
	v, ok := r.Get(name)
	if !ok {
		return false
	}
	switch string(v) {
	case "true":
		return true
	case "false":
		return false
	}
	r.fail(name, "is not a boolean")
	return false
}

func (r *fieldReader) uint(name string) uint64 {
	v, ok := r.Get(name)
	if !ok {
		return 0
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		r.fail(name, "is not a non-negative integer")
	}
	return n
}

func (r *fieldReader) float(name string) float64 {
	v, ok := r.Get(name)
	if !ok {
		return 0
	}
	var n json.Number
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) || json.Unmarshal(v, &n) != nil {
		r.fail(name, "is not a number")
		return 0
	}
	f, err := ParseSerdeFloat(string(n)) // as AZUREAL reads it
	if err != nil {
		r.fail(name, "is out of range")
	}
	return f
}

// ZstdMagic starts every zstd frame.
var ZstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Codec compresses and decompresses event payloads. Its encoders and
// decoder are built once and are safe for concurrent use.
type Codec struct {
	enc   *zstd.Encoder // payloads of entropyMin bytes or more
	small *zstd.Encoder // shorter ones: literals left raw
	Dec   *zstd.Decoder
}

// entropyMin is the payload size from which literals are Huffman-coded.
//
// Every event is a zstd frame of its own, so a Huffman-coded frame carries
// its own table, and a reader rebuilds that table for every event: for the
// few hundred bytes most events hold, the table costs more than decoding
// the text. Below entropyMin the frames keep only zstd's matches and leave
// the literals raw. They are ordinary zstd frames that any decoder (AZUREAL's
// included) reads, they decode about three times faster and encode twice as
// fast, and they take about 8% more room on real transcripts (measured in
// docs/compatibility.md).
const entropyMin = 1024

// rawMax is the payload size below which an event is stored as one raw
// block: a frame holding the JSON as it is. zstd's matches save nothing on
// payloads this short (on the 67,221 events of a Pi history, those under
// 128 bytes grew by 13 % and those of 128 to 255 bytes shrank by 1.4 %), yet
// finding them and coding the sequences cost 2 to 5 µs an event, half of
// what storing a short event costs. A raw frame is written by a copy and
// read by one, and is as standard as any (RFC 8878 §3.1.1.2.2).
const rawMax = 256

func New() (*Codec, error) {
	opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1)}
	enc, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	small, err := zstd.NewWriter(nil, append(opts, zstd.WithNoEntropyCompression(true))...)
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(MaxEventSize), zstd.WithDecoderLowmem(false))
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	return &Codec{enc: enc, small: small, Dec: dec}, nil
}

func (c *Codec) Close() { c.Dec.Close() }

// Compress returns the zstd frame for a JSON payload.
func (c *Codec) Compress(js []byte) []byte {
	if len(js) < rawMax {
		return rawFrame(make([]byte, 0, len(js)+rawFrameOverhead), js)
	}
	if len(js) < entropyMin {
		return c.small.EncodeAll(js, make([]byte, 0, len(js)+16))
	}
	return c.enc.EncodeAll(js, make([]byte, 0, len(js)/2+16))
}

// rawFrameOverhead is what a raw frame of fewer than 256 bytes adds to
// them: magic, frame header descriptor, a one-byte content size, block
// header.
const rawFrameOverhead = 4 + 1 + 1 + 3

// rawFrame appends to dst a zstd frame that stores p (shorter than 256
// bytes) as one raw block: a single-segment frame declaring its content
// size in one byte, with no checksum.
func rawFrame(dst, p []byte) []byte {
	const (
		singleSegment = 1 << 5 // no window descriptor; FCS field size 0 means one byte
		lastBlock     = 1      // block type 0 (raw) in bits 1-2
	)
	h := lastBlock | uint32(len(p))<<3
	dst = append(dst, ZstdMagic...)
	dst = append(dst, singleSegment, byte(len(p)), byte(h), byte(h>>8), byte(h>>16))
	return append(dst, p...)
}

// Payload returns the JSON text of a stored data value. A zstd frame is
// decompressed (bounded by MaxEventSize); anything else is taken as plain
// JSON, as v1 files stored it.
func (c *Codec) Payload(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, ZstdMagic) {
		if len(data) > MaxEventSize {
			return nil, ErrEventTooLarge
		}
		return data, nil
	}
	return c.PayloadTo(nil, data)
}

// PayloadTo decompresses the zstd frame data, appending the JSON to dst.
// A payload that decodes to more than MaxEventSize is refused before it
// is decoded into memory (see checkDecodedSize).
func (c *Codec) PayloadTo(dst, data []byte) ([]byte, error) {
	size, err := checkDecodedSize(data)
	if err != nil {
		return nil, err
	}
	if size > 0 { // counted: decode into a buffer of that size, not a growing one
		dst = slices.Grow(dst, int(size))
	}
	out, err := c.Dec.DecodeAll(data, dst)
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return nil, ErrEventTooLarge
		}
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if len(out)-len(dst) > MaxEventSize {
		return nil, ErrEventTooLarge
	}
	return out, nil
}

// Decode returns the event stored in data.
func (c *Codec) Decode(data []byte) (Event, error) {
	js, err := c.Payload(data)
	if err != nil {
		return Event{}, err
	}
	return DecodeEventJSON(js)
}

// sharedCodec decodes payloads for PayloadJSON; its decoder is safe for
// concurrent use.
var sharedCodec = sync.OnceValues(New)

// PayloadJSON returns the JSON text of a stored events.data value: a zstd
// frame decompressed (bounded by MaxEventSize), or plain JSON as v1 files
// stored it. It is what the insight index's decode() SQL function returns.
func PayloadJSON(data []byte) ([]byte, error) {
	c, err := sharedCodec()
	if err != nil {
		return nil, err
	}
	return c.Payload(data)
}
