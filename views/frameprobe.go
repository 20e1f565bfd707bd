package views

// The frame probe: with LAZULI_TRACE set, a one-pixel raster drawn last in
// the main window's content tells the trace when a frame showing a result
// was painted (internal/trace: "ready", then "frame").

import (
	"image"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/trace"
)

// frameProbe is a transparent pixel whose texture the painter makes anew
// in the first frame after each Refresh: the generator runs while that
// frame is drawn, after everything drawn before it in the content tree.
type frameProbe struct {
	raster *canvas.Raster
	mu     sync.Mutex // the painter calls gen; ready runs on the Fyne goroutine
	ready  []string   // ready points waiting for their frame
	pixel  *image.NRGBA
}

func newFrameProbe() *frameProbe {
	p := &frameProbe{pixel: image.NewNRGBA(image.Rect(0, 0, 1, 1))}
	p.raster = canvas.NewRaster(p.gen)
	p.raster.Resize(fyne.NewSize(1, 1))
	return p
}

// layer is the probe in a container of its own, to lay over the content.
func (p *frameProbe) layer() fyne.CanvasObject { return container.NewWithoutLayout(p.raster) }

// gen is the raster's generator: it writes the frame point of every ready
// point since the last frame.
func (p *frameProbe) gen(int, int) image.Image {
	p.mu.Lock()
	ready := p.ready
	p.ready = nil
	p.mu.Unlock()
	for _, detail := range ready {
		trace.Mark("frame", detail)
	}
	return p.pixel
}

// mark writes the ready point detail and asks for a frame.
func (p *frameProbe) mark(detail string) {
	if p == nil || !trace.On() {
		return
	}
	trace.Mark("ready", detail)
	p.mu.Lock()
	p.ready = append(p.ready, detail)
	p.mu.Unlock()
	canvas.Refresh(p.raster)
}

// probe is the main window's frame probe; nil without LAZULI_TRACE.
var (
	probeMu sync.Mutex
	probe   *frameProbe
)

// TraceReady writes the trace point that the window shows the result of
// action, and the point of the first frame painted after it. Without
// LAZULI_TRACE it does nothing. Call it on the Fyne goroutine.
func TraceReady(action string) {
	if !trace.On() {
		return
	}
	probeMu.Lock()
	p := probe
	probeMu.Unlock()
	if p == nil {
		trace.Mark("ready", action)
		return
	}
	p.mark(action)
}

// withProbe lays the frame probe over content, when tracing is on.
func withProbe(content fyne.CanvasObject) []fyne.CanvasObject {
	if !trace.On() {
		return []fyne.CanvasObject{content}
	}
	p := newFrameProbe()
	probeMu.Lock()
	probe = p
	probeMu.Unlock()
	return []fyne.CanvasObject{content, p.layer()}
}

// traceSettled writes the ready point detail once the rows measured for
// the last layout have their heights (rowList.flush has nothing left):
// the frame after it shows the transcript as it stays. When nothing is
// left now, it writes it at once: posting the check would wait behind
// whatever frames the event loop paints first, which show the result
// already.
func (r *rowList) traceSettled(detail string) {
	if !trace.On() {
		return
	}
	tries := 0
	var check func()
	check = func() {
		if (r.scheduled || len(r.pending) > 0) && tries < 100 {
			tries++
			r.post(check)
			return
		}
		TraceReady(detail)
	}
	check()
}

// TraceSettled writes the ready point detail once the transcript's rows
// have settled (see rowList.traceSettled). Without LAZULI_TRACE it does
// nothing.
func (t *Transcript) TraceSettled(detail string) { t.rows.traceSettled(detail) }

// traceSidebar writes, the first time the sidebar lists sessions, the ready
// point "start" and, once laid out, where its list and its name filter are,
// for a driver that clicks them: "geom sidebar X Y W H ROW_HEIGHT PADDING"
// and "geom filter X Y W H".
func (s *Sidebar) traceSidebar() {
	if !trace.On() || s.traced || len(s.rows) == 0 {
		return
	}
	s.traced = true
	TraceReady("start")
	go fyne.Do(func() { // after the layout of the frame being drawn
		d := fyne.CurrentApp().Driver()
		pos, size := d.AbsolutePositionForObject(s.list), s.list.Size()
		trace.Markf("geom", "sidebar %.0f %.0f %.0f %.0f %.1f %.1f", pos.X, pos.Y, size.Width, size.Height,
			s.items.create().MinSize().Height, s.list.Theme().Size(theme.SizeNamePadding))
		e := s.filters.entry
		pos, size = d.AbsolutePositionForObject(e), e.Size()
		trace.Markf("geom", "filter %.0f %.0f %.0f %.0f", pos.X, pos.Y, size.Width, size.Height)
		s.traceRows()
	})
}

// traceRows writes which sessions the sidebar's first rows show, from the
// top of its list: "geom rows S12,header,S3".
func (s *Sidebar) traceRows() {
	if !trace.On() || !s.traced {
		return
	}
	refs := make([]string, 0, min(len(s.rows), 40))
	for i := range min(len(s.rows), 40) {
		if s.rows[i].header {
			refs = append(refs, "header")
		} else {
			refs = append(refs, "S"+strconv.FormatInt(s.rows[i].ref.ID, 10))
		}
	}
	trace.Mark("geom", "rows "+strings.Join(refs, ","))
}
