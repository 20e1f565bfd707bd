package project

// This file keeps a project's default permission mode and rules: Lazuli's
// settings for the project, read by the window and the command line alike,
// in permissions.json in Lazuli's configuration folder
// ($LAZULI_CONFIG_DIR, or "lazuli" in the user configuration folder),
// keyed by the project's Key. A session's own mode and rules, kept in its
// store, override them.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lazuli-app/lazuli/store"
)

// ConfigDirEnv names the environment variable that overrides Lazuli's
// configuration folder.
const ConfigDirEnv = "LAZULI_CONFIG_DIR"

// ConfigDir returns Lazuli's configuration folder. It does not create it.
func ConfigDir() (string, error) {
	if d := os.Getenv(ConfigDirEnv); d != "" {
		return filepath.Abs(d)
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration folder: %w", err)
	}
	return filepath.Join(base, "lazuli"), nil
}

// Key names a project in Lazuli's settings: the smallest of its worktree
// folders (or store files), the same whichever worktree it was opened from.
func Key(wts []Worktree) string {
	key := ""
	for _, wt := range wts {
		k := wt.Dir
		if k == "" {
			k = wt.StorePath
		}
		if key == "" || k < key {
			key = k
		}
	}
	return key
}

// permissionsFile is where the projects' defaults are kept.
func permissionsFile() (string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "permissions.json"), nil
}

// readDefaults reads every project's defaults; a missing file is none.
func readDefaults() (map[string]store.Permissions, string, error) {
	path, err := permissionsFile()
	if err != nil {
		return nil, "", err
	}
	all := map[string]store.Permissions{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, path, nil
	}
	if err != nil {
		return nil, path, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, path, fmt.Errorf("read %s: not a permissions file: %w", path, err)
	}
	return all, path, nil
}

// DefaultPermissions returns the defaults of the project named key.
func DefaultPermissions(key string) (store.Permissions, error) {
	all, _, err := readDefaults()
	if err != nil {
		return store.Permissions{}, err
	}
	return all[key], nil
}

// SetDefaultPermissions replaces the defaults of the project named key
// (the zero value removes them). The file is replaced whole, never left
// half-written; a file that cannot be read is left as it is.
func SetDefaultPermissions(key string, p store.Permissions) error {
	all, path, err := readDefaults()
	if err != nil {
		return err
	}
	if p.IsZero() {
		delete(all, key)
	} else {
		if p.Rules == nil {
			p.Rules = []store.PermissionRule{}
		}
		all[key] = p
	}
	return writeJSON(path, all)
}

// writeJSON replaces the file at path with v as indented JSON, whole,
// never half-written, creating its folder (0700) when needed.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
