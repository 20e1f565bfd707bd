package app

import (
	"log"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/views"
)

// Preference keys of the project's save policy (issue 20's save_policy,
// save_buffer_ms and save_buffer_size), each followed by the project's key
// (projectKey).
const (
	prefSavePolicy     = "save_policy:"
	prefSaveBufferMS   = "save_buffer_ms:"
	prefSaveBufferSize = "save_buffer_size:"
)

// savePolicy returns the project's save policy as its dialog shows it: by
// default chunk with its default buffer.
func (rn *runner) savePolicy() views.SavePolicySettings {
	if rn.pw.ui == nil || rn.pw.ui.fa == nil {
		return views.SavePolicySettings{Policy: string(agents.SaveChunk)}
	}
	p, key := rn.pw.ui.fa.Preferences(), rn.pw.projectKey()
	return views.SavePolicySettings{Policy: p.StringWithFallback(prefSavePolicy+key, string(agents.SaveChunk)),
		BufferMS: p.Int(prefSaveBufferMS + key), BufferSize: p.Int(prefSaveBufferSize + key)}
}

// setSavePolicy stores the project's save policy; runs started later
// follow it.
func (rn *runner) setSavePolicy(s views.SavePolicySettings) {
	p, key := rn.pw.ui.fa.Preferences(), rn.pw.projectKey()
	p.SetString(prefSavePolicy+key, s.Policy)
	p.SetInt(prefSaveBufferMS+key, s.BufferMS)
	p.SetInt(prefSaveBufferSize+key, s.BufferSize)
}

// saveOptions are the save options of the project's runs. A setting that
// is not valid (preferences edited by hand) gives the default, said once
// in the log per run.
func (rn *runner) saveOptions() agents.SaveOptions {
	s := rn.savePolicy()
	policy, err := agents.ParseSavePolicy(s.Policy)
	o := agents.SaveOptions{Policy: policy, Buffer: time.Duration(s.BufferMS) * time.Millisecond, BufferSize: s.BufferSize}
	if err == nil {
		err = o.Validate()
	}
	if err != nil {
		log.Printf("save policy of %s: %v; saving in chunks", rn.pw.projectKey(), err)
		return agents.SaveOptions{}
	}
	return o
}

// showSavePolicy opens the dialog of the project's save policy.
func (rn *runner) showSavePolicy() {
	views.ShowSavePolicy(rn.pw.win, rn.savePolicy(), rn.setSavePolicy)
}
