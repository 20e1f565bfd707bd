package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// showTestSavePolicy opens the save policy dialog for cur and returns its
// window, policy choice, buffer entries and where Save puts its value.
func showTestSavePolicy(t *testing.T, cur SavePolicySettings) (fyne.Window, *widget.RadioGroup, []*widget.Entry, *[]SavePolicySettings) {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(900, 700))
	var saved []SavePolicySettings
	ShowSavePolicy(w, cur, func(s SavePolicySettings) { saved = append(saved, s) })
	top := w.Canvas().Overlays().Top()
	radios := objectsOf[*widget.RadioGroup](top)
	entries := objectsOf[*widget.Entry](top)
	if len(radios) != 1 || len(entries) != 2 {
		t.Fatalf("the dialog has %d choices and %d entries, want 1 and 2", len(radios), len(entries))
	}
	return w, radios[0], entries, &saved
}

// TestSavePolicyDialogSaves: the dialog shows the project's policy, the
// buffer fields only for chunk, and Save gives what was chosen.
func TestSavePolicyDialogSaves(t *testing.T) {
	w, policy, entries, saved := showTestSavePolicy(t, SavePolicySettings{Policy: "step"})
	if policy.Selected != savePolicyChoices[1].label {
		t.Fatalf("selected %q, want step's", policy.Selected)
	}
	if !entries[0].Disabled() || !entries[1].Disabled() {
		t.Error("the buffer fields are enabled for step; they only tune chunk")
	}
	policy.SetSelected(savePolicyChoices[0].label)
	if entries[0].Disabled() || entries[1].Disabled() {
		t.Fatal("the buffer fields stay disabled for chunk")
	}
	entries[0].SetText("100")
	entries[1].SetText(" 64 ")
	test.Tap(overlayButton(t, w.Canvas(), "Save"))
	if len(*saved) != 1 || (*saved)[0] != (SavePolicySettings{Policy: "chunk", BufferMS: 100, BufferSize: 64}) {
		t.Fatalf("Save gave %+v", *saved)
	}
}

// TestSavePolicyDialogTurnDropsBuffers: turn saves no buffer, whatever
// the fields held for chunk.
func TestSavePolicyDialogTurnDropsBuffers(t *testing.T) {
	w, policy, _, saved := showTestSavePolicy(t, SavePolicySettings{Policy: "chunk", BufferMS: 500, BufferSize: 10})
	policy.SetSelected(savePolicyChoices[2].label)
	test.Tap(overlayButton(t, w.Canvas(), "Save"))
	if len(*saved) != 1 || (*saved)[0] != (SavePolicySettings{Policy: "turn"}) {
		t.Fatalf("Save gave %+v", *saved)
	}
}

// TestSavePolicyDialogRefusesBadBuffer: a buffer that is not a count ≥ 0
// disables Save; Cancel saves nothing.
func TestSavePolicyDialogRefusesBadBuffer(t *testing.T) {
	w, _, entries, saved := showTestSavePolicy(t, SavePolicySettings{})
	test.Type(entries[1], "-5")
	save := overlayButton(t, w.Canvas(), "Save")
	if !save.Disabled() {
		t.Error("Save is enabled with a buffer of -5 events")
	}
	test.Tap(overlayButton(t, w.Canvas(), "Cancel"))
	if len(*saved) != 0 {
		t.Fatalf("saved %+v", *saved)
	}
}
