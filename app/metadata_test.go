package app

import "testing"

// The window runs with Fyne's per-call goroutine check off (see
// appMetadata); the migration must stay declared, with the app's identity.
func TestAppMetadataDeclaresFyneDo(t *testing.T) {
	m := appMetadata()
	if !m.Migrations["fyneDo"] {
		t.Errorf("appMetadata().Migrations = %v, want fyneDo: true", m.Migrations)
	}
	if m.ID != AppID || m.Name != "Lazuli" {
		t.Errorf("appMetadata() = ID %q, Name %q, want %q, %q", m.ID, m.Name, AppID, "Lazuli")
	}
}
