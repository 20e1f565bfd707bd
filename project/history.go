package project

// This file keeps whether a project lets the agents Lazuli runs search
// its history (`lazuli mcp`, issue 34): off unless turned on, per
// project, in history.json in Lazuli's configuration folder, keyed by
// the project's Key, read by the window and `lazuli run` alike.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// readShared reads every project's setting; a missing file is none.
func readShared() (map[string]bool, string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, "history.json")
	all := map[string]bool{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, path, nil
	}
	if err != nil {
		return nil, path, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, path, fmt.Errorf("read %s: not a history settings file: %w", path, err)
	}
	return all, path, nil
}

// ShareHistory reports whether the project named key lets agents search
// its history.
func ShareHistory(key string) (bool, error) {
	all, _, err := readShared()
	return all[key], err
}

// SetShareHistory turns the project's setting on or off. A file that
// cannot be read is left as it is.
func SetShareHistory(key string, on bool) error {
	all, path, err := readShared()
	if err != nil {
		return err
	}
	if on {
		all[key] = true
	} else {
		delete(all, key)
	}
	return writeJSON(path, all)
}
