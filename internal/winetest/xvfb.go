package winetest

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strings"
)

// Xvfb is a virtual X server for the window.
type Xvfb struct {
	Display string // ":N"
	cmd     *exec.Cmd
}

// StartXvfb starts Xvfb on a free display with one screen of size
// (e.g. "1200x800x24"); Xvfb itself picks the display (-displayfd).
func StartXvfb(ctx context.Context, size string) (*Xvfb, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, "Xvfb", "-displayfd", "3", "-screen", "0", size, "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start Xvfb: %w", err)
	}
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("Xvfb gave no display: %w", err)
	}
	return &Xvfb{Display: ":" + strings.TrimSpace(line), cmd: cmd}, nil
}

// Close stops the server.
func (x *Xvfb) Close() error {
	_ = x.cmd.Process.Kill()
	_ = x.cmd.Wait() // killed: its exit status says so
	return nil
}

// Screenshot writes the whole screen to path as PNG (ImageMagick's
// import) and returns it decoded.
func (x *Xvfb) Screenshot(ctx context.Context, path string) (image.Image, error) {
	cmd := exec.CommandContext(ctx, "import", "-display", x.Display, "-window", "root", "png:"+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("import -window root: %w: %s", err, lastLines(out, 3))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return img, nil
}

// Colours counts the distinct colours of img: a blank window has one or
// two, a window showing text hundreds.
func Colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}
