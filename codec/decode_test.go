package codec

import (
	"runtime"
	"testing"
)

// TestDecoderPool checks that the pool keeps at most GOMAXPROCS decoders,
// drops one that decompressed a big payload, and that decoders it hands
// out decompress.
func TestDecoderPool(t *testing.T) {
	var p DecoderPool
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	frame := c.Compress([]byte(`{"AssistantText":{"text":"hello"}}`))
	var got []*Codec
	for range runtime.GOMAXPROCS(0) + 2 {
		d := p.Get()
		if d == nil {
			t.Fatal("get() = nil")
		}
		if js, err := d.PayloadTo(nil, frame); err != nil || string(js) != `{"AssistantText":{"text":"hello"}}` {
			t.Fatalf("payloadTo() = %q, %v", js, err)
		}
		got = append(got, d)
	}
	for _, d := range got {
		p.Put(d, false)
	}
	if len(p.free) != runtime.GOMAXPROCS(0) {
		t.Errorf("pool keeps %d decoders, want GOMAXPROCS (%d)", len(p.free), runtime.GOMAXPROCS(0))
	}
	d := p.Get()
	p.Put(d, true)
	if len(p.free) != runtime.GOMAXPROCS(0)-1 {
		t.Errorf("pool kept a decoder that decompressed a big payload")
	}
	p.Close()
	p.Put(p.Get(), false)
	if len(p.free) != 0 {
		t.Errorf("a closed pool keeps %d decoders", len(p.free))
	}
}
