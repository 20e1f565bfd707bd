package app

// This file is the owner of permissions in the window: the header's mode,
// the settings dialog of a session (and of the project's defaults), the
// Allow / Deny / Always allow dialog that answers an agent's permission
// prompts, and the notice about root, shown once per window.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"fyne.io/fyne/v2/dialog"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// permissions owns what the window shows and asks of permissions.
type permissions struct {
	pw      *projectWindow
	notices *agents.Notices // what Lazuli says about how it runs agents, once each

	mu      sync.Mutex
	prompts map[*views.PromptDialog]views.SessionRef // the permission prompts open, with their sessions
}

func newPermissions(pw *projectWindow) *permissions {
	p := &permissions{pw: pw, prompts: map[*views.PromptDialog]views.SessionRef{}}
	p.notices = &agents.Notices{Show: p.notice}
	return p
}

// permissionModes lists the modes as the views offer them.
func permissionModes() []views.ModeChoice {
	out := make([]views.ModeChoice, 0, len(agents.PermissionModes))
	for _, m := range agents.PermissionModes {
		out = append(out, views.ModeChoice{Value: string(m), Title: m.Title()})
	}
	return out
}

// projectDefaults returns the project's default mode and rules.
func (pm *permissions) projectDefaults() (store.Permissions, error) {
	return project.DefaultPermissions(pm.pw.projectKey())
}

// policy returns the project's defaults, ref's own permissions and what a
// run of ref follows. Not on the Fyne goroutine.
func (pm *permissions) policy(ref views.SessionRef) (store.Permissions, store.Permissions, agents.Policy, error) {
	st, err := pm.pw.store(ref.StorePath)
	if err != nil {
		return store.Permissions{}, store.Permissions{}, agents.Policy{}, err
	}
	proj, err := pm.projectDefaults()
	if err != nil {
		return proj, store.Permissions{}, agents.Policy{}, err
	}
	own, err := st.Permissions().Of(pm.pw.ctx, ref.ID)
	if err != nil {
		return proj, own, agents.Policy{}, err
	}
	return proj, own, agents.EffectivePermissions(proj, own), nil
}

// showMode puts ref's mode in the header. It runs on the goroutine that
// loaded the session, after the session is shown.
func (pm *permissions) showMode(ref views.SessionRef) {
	_, _, pol, err := pm.policy(ref)
	title := pol.Mode.Title()
	if err != nil {
		title = "unreadable"
	}
	onUI(func() { pm.pw.mv.Header().SetPermissionMode(ref, title) })
}

// settings is what the settings dialog needs besides the permissions it
// edits.
func settings(title string, cur store.Permissions) views.PermissionSettings {
	return views.PermissionSettings{Title: title, Modes: permissionModes(), Current: cur,
		Parse: agents.ParseRule, Spec: agents.RuleSpec}
}

// readOnlyPermissions is why a read-only window's permission settings
// change nothing.
const readOnlyPermissions = "This window only looks at its store (read-only): permissions can be seen here, not changed."

// EditPermissions opens the permission settings of ref; Save writes them
// to its store and shows the new mode. In a read-only window they are
// only shown, their controls disabled (readOnlyPermissions).
func (pm *permissions) EditPermissions(ref views.SessionRef) {
	if ref.ID == 0 {
		return
	}
	pw := pm.pw
	pw.wg.Go(func() {
		proj, own, _, err := pm.policy(ref)
		if err != nil {
			pw.showError("read permissions", err)
			return
		}
		projPol := agents.EffectivePermissions(proj, store.Permissions{})
		s := settings(store.DisplayName(ref.ID, pm.sessionName(ref)), own)
		s.Inherited, s.ProjectRules = projPol.Mode.Title(), projPol.Rules
		s.AgentNotes = func(p store.Permissions) []string {
			return agents.UnexpressedAll(agents.EffectivePermissions(proj, p))
		}
		if pw.readOnly {
			s.ReadOnly = readOnlyPermissions
		}
		onUI(func() {
			views.ShowPermissionSettings(pw.win, s, func(p store.Permissions) {
				if pw.readOnly { // the dialog has no Save: not reached
					pw.showError("save permissions", errReadOnly)
					return
				}
				pw.wg.Go(func() {
					st, err := pw.store(ref.StorePath)
					if err == nil {
						err = st.Permissions().Set(pw.ctx, ref.ID, p)
					}
					if err != nil {
						pw.showError("save permissions", err)
						return
					}
					pm.showMode(ref)
				})
			})
		})
	})
}

// editProject opens the project's default permissions; Save writes them
// to Lazuli's settings.
func (pm *permissions) editProject() {
	pw := pm.pw
	pw.wg.Go(func() {
		proj, err := pm.projectDefaults()
		if err != nil {
			pw.showError("read project permissions", err)
			return
		}
		s := settings("Defaults of every session of this project without its own", proj)
		s.AgentNotes = func(p store.Permissions) []string {
			return agents.UnexpressedAll(agents.EffectivePermissions(p, store.Permissions{}))
		}
		onUI(func() {
			views.ShowPermissionSettings(pw.win, s, func(p store.Permissions) {
				pw.wg.Go(func() {
					if err := project.SetDefaultPermissions(pw.projectKey(), p); err != nil {
						pw.showError("save project permissions", err)
						return
					}
					if cur := pw.shown.ref(); cur.ID != 0 {
						pm.showMode(cur)
					}
				})
			})
		})
	})
}

// sessionName is ref's stored name, or "" (store.DisplayName then says S<id>).
func (pm *permissions) sessionName(ref views.SessionRef) string {
	st, err := pm.pw.store(ref.StorePath)
	if err != nil {
		return ""
	}
	s, err := st.Sessions().Get(pm.pw.ctx, ref.ID)
	if err != nil {
		return ""
	}
	return s.Name
}

// ask answers the permission prompts of a run on the store at storePath
// with the Allow / Deny / Always allow dialog; a prompt the agent stops
// waiting for is closed.
func (pm *permissions) ask(storePath string) func(context.Context, agents.PermissionRequest) agents.PermissionAnswer {
	return func(ctx context.Context, req agents.PermissionRequest) agents.PermissionAnswer {
		ref := views.SessionRef{StorePath: storePath, ID: req.SessionID}
		var pretty bytes.Buffer
		if json.Indent(&pretty, req.Input, "", "  ") != nil {
			pretty.Reset()
			pretty.Write(req.Input)
		}
		p := views.PermissionPrompt{Session: store.DisplayName(ref.ID, pm.sessionName(ref)), Tool: req.Tool, Subject: req.Subject,
			Input: pretty.String()}
		answer := make(chan views.PermissionChoice, 1)
		pm.pw.status.set(ref, fmt.Sprintf("%s asks to run %s", store.DisplayName(ref.ID, ""), req.Summary()), false)
		// Never wait for the Fyne goroutine here: closing the window waits
		// on it for the runs, whose agents wait for this answer. d is only
		// touched in functions run on the Fyne goroutine, in order.
		var d *views.PromptDialog
		onUI(func() {
			d = views.ShowPermissionPrompt(pm.pw.win, p, func(c views.PermissionChoice) { answer <- c })
			pm.mu.Lock()
			pm.prompts[d] = ref
			pm.mu.Unlock()
		})
		forget := func() {
			pm.mu.Lock()
			delete(pm.prompts, d)
			pm.mu.Unlock()
		}
		select {
		case c := <-answer:
			onUI(forget)
			switch c {
			case views.ChoiceAlways:
				return agents.AnswerAlways
			case views.ChoiceAllow:
				return agents.AnswerAllow
			}
			return agents.AnswerDeny
		case <-ctx.Done():
			onUI(func() {
				d.Dismiss()
				forget()
			})
			return agents.AnswerDeny
		}
	}
}

// openPrompts returns the permission prompt dialogs open in the window.
func (pm *permissions) openPrompts() []*views.PromptDialog {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	out := make([]*views.PromptDialog, 0, len(pm.prompts))
	for d := range pm.prompts {
		out = append(out, d)
	}
	return out
}

// notice shows what Lazuli says about how it runs an agent
// (agents.RootNotice); pm.notices shows each once per window.
func (pm *permissions) notice(msg string) {
	pm.pw.status.set(pm.pw.shown.ref(), msg, false)
	onUI(func() { dialog.ShowInformation("Permissions", msg, pm.pw.win) })
}
