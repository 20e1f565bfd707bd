package views

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// fakeActions records the intents it receives, one string per call. It
// implements Actions, and so RunActions.
type fakeActions struct {
	calls []string
}

func (f *fakeActions) SelectSession(ref SessionRef) {
	f.calls = append(f.calls, fmt.Sprintf("select %s#%d", ref.StorePath, ref.ID))
}

func (f *fakeActions) NewSession(storePath, worktree string) {
	f.calls = append(f.calls, "new "+storePath+" "+worktree)
}

func (f *fakeActions) RenameSession(ref SessionRef, name string) {
	f.calls = append(f.calls, fmt.Sprintf("rename %s#%d %q", ref.StorePath, ref.ID, name))
}

func (f *fakeActions) DeleteSession(ref SessionRef) {
	f.calls = append(f.calls, fmt.Sprintf("delete %s#%d", ref.StorePath, ref.ID))
}

func (f *fakeActions) LoadEarlier(ref SessionRef, all bool) {
	f.calls = append(f.calls, fmt.Sprintf("earlier %s#%d all=%v", ref.StorePath, ref.ID, all))
}

func (f *fakeActions) OpenSubagent(parent SessionRef, toolUseID string) {
	f.calls = append(f.calls, fmt.Sprintf("subagent %s#%d %s", parent.StorePath, parent.ID, toolUseID))
}

func (f *fakeActions) OpenParent(ref SessionRef) {
	f.calls = append(f.calls, fmt.Sprintf("parent %s#%d", ref.StorePath, ref.ID))
}

func (f *fakeActions) LoadFileDiffs(file InsightFile) {
	f.calls = append(f.calls, fmt.Sprintf("diffs %s#%d %s", file.Store, file.SessionID, file.Path))
}

func (f *fakeActions) OpenRef(r RefChip) {
	f.calls = append(f.calls, fmt.Sprintf("ref %s %s %s", r.Kind, r.Value, r.URL))
}

func (f *fakeActions) OpenLink(raw string) {
	f.calls = append(f.calls, "link "+raw)
}

func (f *fakeActions) EditPermissions(ref SessionRef) {
	f.calls = append(f.calls, fmt.Sprintf("permissions %s#%d", ref.StorePath, ref.ID))
}

func (f *fakeActions) SendPrompt(req PromptRequest) {
	f.calls = append(f.calls, fmt.Sprintf("send %s#%d %q model=%q", req.Ref.StorePath, req.Ref.ID, req.Prompt, req.Model))
}

func (f *fakeActions) StopRun(ref SessionRef) {
	f.calls = append(f.calls, fmt.Sprintf("stop %s#%d", ref.StorePath, ref.ID))
}

func (f *fakeActions) SwitchModel(ref SessionRef, model string) {
	f.calls = append(f.calls, fmt.Sprintf("model %s#%d %q", ref.StorePath, ref.ID, model))
}

func (f *fakeActions) SaveAgentSettings(s AgentSettings) {
	f.calls = append(f.calls, fmt.Sprintf("settings %q %q", s.Paths["claude"], s.Paths["codex"]))
}

func (f *fakeActions) String() string { return strings.Join(f.calls, "; ") }

// stored wraps events as stored rows with seq 1, 2, ….
func stored(events ...codec.Event) []store.StoredEvent {
	return storedFrom(1, events...)
}

// storedFrom wraps events as stored rows with seq first, first+1, ….
func storedFrom(first int64, events ...codec.Event) []store.StoredEvent {
	out := make([]store.StoredEvent, len(events))
	for i, e := range events {
		seq := first + int64(i)
		out[i] = store.StoredEvent{ID: seq, Seq: seq, Kind: e.Kind, CharLen: codec.CharLen(e), Event: e}
	}
	return out
}

// rawJSON marshals v, failing the test on error.
func rawJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// objectsOf returns the objects of type T in the tree under o (o
// included), walking the widgets' current renderers. (test.LaidOutObjects
// would make new renderers, and so new list items.)
func objectsOf[T fyne.CanvasObject](o fyne.CanvasObject) []T {
	return collectObjects[T](o, false)
}

// collectObjects is objectsOf; with shownOnly set it leaves out what is
// hidden, itself or through an object above it.
func collectObjects[T fyne.CanvasObject](o fyne.CanvasObject, shownOnly bool) []T {
	var out []T
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if shownOnly && !o.Visible() {
			return
		}
		if v, ok := o.(T); ok {
			out = append(out, v)
		} else if b, ok := o.(*dialogButton); ok {
			if v, ok := any(&b.Button).(T); ok {
				out = append(out, v)
			}
		}
		switch c := o.(type) {
		case *fyne.Container:
			for _, k := range c.Objects {
				walk(k)
			}
		case fyne.Widget:
			for _, k := range test.WidgetRenderer(c).Objects() {
				walk(k)
			}
		}
	}
	if o != nil {
		walk(o)
	}
	return out
}

// overlayButton returns the button labelled text in the top overlay.
func overlayButton(t *testing.T, c fyne.Canvas, text string) *widget.Button {
	t.Helper()
	top := c.Overlays().Top()
	if top == nil {
		t.Fatalf("no dialog is shown")
	}
	for _, b := range objectsOf[*widget.Button](top) {
		if b.Text == text {
			return b
		}
	}
	t.Fatalf("no %q button in the dialog", text)
	return nil
}

// overlayText returns the texts of the labels in the top overlay.
func overlayText(c fyne.Canvas) string {
	var parts []string
	for _, l := range objectsOf[*widget.Label](c.Overlays().Top()) {
		parts = append(parts, l.Text)
	}
	return strings.Join(parts, "\n")
}

// postQueue replaces fyne.Do in a transcript: the test runs the queued
// functions when it chooses, as the event loop would after a layout.
type postQueue struct {
	fns []func()
}

func (q *postQueue) post(f func()) { q.fns = append(q.fns, f) }

// drain runs queued functions until none is left.
func (q *postQueue) drain() {
	for i := 0; len(q.fns) > 0 && i < 100; i++ {
		fns := q.fns
		q.fns = nil
		for _, f := range fns {
			f()
		}
	}
}
