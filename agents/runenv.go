package agents

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Environ returns the whole environment of inv's run: inv.Env (or this
// process's) with the variables its descriptor gives a run with MCP
// servers (RunEnv). Files they name are written in a scratch folder of
// the run's own; cleanup removes it, once the CLI has exited.
func (inv Invocation) Environ() (env []string, cleanup func(), err error) {
	env = inv.Env
	if env == nil {
		env = os.Environ()
	}
	d := inv.Backend.desc()
	if d.RunEnv == nil || inv.Sandboxed || len(inv.MCPServers) == 0 {
		return env, func() {}, nil
	}
	scratch, err := os.MkdirTemp("", "lazuli-run-")
	if err != nil {
		return nil, nil, fmt.Errorf("scratch folder of a %s run: %w", inv.Backend, err)
	}
	cleanup = func() { os.RemoveAll(scratch) }
	more, err := d.RunEnv(inv, scratch)
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("configuration of a %s run: %w", inv.Backend, err)
	}
	return append(slices.Clip(env), more...), cleanup, nil
}

// getenv returns the last value of key in env.
func getenv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	return v
}
