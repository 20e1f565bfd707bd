package codec

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
)

// A full text is stored as an S2 block after its tag and read back whole;
// a zstd frame, as rows written before hold, reads too; a block that
// declares more than MaxEventSize is refused before it is decoded, and a
// damaged one is an error, not a wrong text.
func TestTextTo(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	text := strings.Repeat("ok  \tgithub.com/lazuli-app/lazuli/store\t1.23s\nFAIL é\n", 300)
	stored := CompressText(text)
	if !bytes.HasPrefix(stored, textS2) || len(stored) >= len(text)/2 {
		t.Fatalf("stored %d bytes of %d, prefix %q", len(stored), len(text), stored[:min(4, len(stored))])
	}
	got, err := c.TextTo([]byte("kept:"), stored)
	if err != nil || string(got) != "kept:"+text {
		t.Fatalf("TextTo = %.40q…, %v", got, err)
	}
	if got, err := c.TextTo(nil, c.Compress([]byte(text))); err != nil || string(got) != text {
		t.Fatalf("a zstd frame: %.40q…, %v", got, err)
	}
	if got, err := c.TextTo(nil, CompressText("")); err != nil || len(got) != 0 {
		t.Fatalf("the empty text: %q, %v", got, err)
	}

	big := append(bytes.Clone(textS2), s2.Encode(nil, bytes.Repeat([]byte{'x'}, MaxEventSize+1))...)
	if _, err := c.TextTo(nil, big); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("a text over MaxEventSize: %v", err)
	}
	damaged := bytes.Clone(stored)
	damaged[len(damaged)/2] ^= 0xff
	damaged[len(damaged)/2+1] ^= 0x5a
	if got, err := c.TextTo(nil, damaged); err == nil && string(got) == text {
		t.Errorf("a damaged block read back as the text")
	}
	if _, err := c.TextTo(nil, textS2); err == nil {
		t.Errorf("a tag without a block read as a text")
	}
}
