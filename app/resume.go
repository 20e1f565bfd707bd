package app

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/views"
)

// errNotResumable says a session has no native agent session to resume.
var errNotResumable = errors.New("this session was not imported from an agent's own history, and no Claude session of it is recorded: there is nothing to resume in the agent's CLI")

// resumeCommand is the shell command that resumes a native agent session
// in its CLI, run in dir ("" for none).
func resumeCommand(agent, id, dir string) string {
	words := agents.Backend(agent).ResumeCommand(id)
	if words == nil {
		words = agents.Claude.ResumeCommand(id)
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellWord(w)
	}
	cmd := strings.Join(quoted, " ")
	if dir == "" {
		return cmd
	}
	return "cd " + shellWord(dir) + " && " + cmd
}

// plainWord matches words the shell reads as they are.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellWord quotes s for a POSIX shell when it needs quoting.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sessionResumeCommand finds how to resume ref in its agent's CLI: the
// native session it was imported from, else the Claude session a run of
// it recorded (sessions.last_claude_uuid).
func (sh *shownSession) sessionResumeCommand(ref views.SessionRef) (string, error) {
	st, err := sh.pw.store(ref.StorePath)
	if err != nil {
		return "", err
	}
	dir := ""
	for _, wt := range sh.pw.wts {
		if wt.StorePath == ref.StorePath {
			dir = wt.Dir
		}
	}
	native, err := st.Native().Imports(sh.pw.ctx)
	if err != nil {
		return "", err
	}
	for key, rec := range native {
		if rec.SessionID == ref.ID && rec.ParentID == "" {
			return resumeCommand(key.Agent, key.ID, dir), nil
		}
	}
	s, err := st.Sessions().Get(sh.pw.ctx, ref.ID)
	if err != nil {
		return "", err
	}
	if s.LastClaudeUUID != "" {
		return resumeCommand("claude", s.LastClaudeUUID, dir), nil
	}
	return "", errNotResumable
}

// copyResumeCommand copies the resume command of the session shown to the
// clipboard and says so.
func (sh *shownSession) copyResumeCommand() {
	sh.mu.Lock()
	ref := sh.current
	sh.mu.Unlock()
	if ref.ID == 0 {
		return
	}
	sh.pw.wg.Go(func() {
		cmd, err := sh.sessionResumeCommand(ref)
		if err != nil {
			sh.pw.showError("resume in the agent's CLI", err)
			return
		}
		onUI(func() {
			sh.pw.ui.fa.Clipboard().SetContent(cmd)
			views.ShowMessage(sh.pw.win, "Resume in the agent's CLI", fmt.Sprintf("Copied to the clipboard:\n\n%s", cmd))
		})
	})
}
