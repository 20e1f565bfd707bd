package assets

import (
	"bytes"
	"image/png"
	"testing"
)

func TestIconIsSquarePNG(t *testing.T) {
	if Icon.Name() != "icon.png" {
		t.Errorf("Icon.Name() = %q, want icon.png", Icon.Name())
	}
	img, err := png.Decode(bytes.NewReader(Icon.Content()))
	if err != nil {
		t.Fatalf("decoding the embedded icon: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		t.Errorf("icon is %dx%d, want 512x512", b.Dx(), b.Dy())
	}
}
