package nativetree

// This file builds the native-history workload of the import and index
// benchmarks (/work/shared/benchmarks/native-workload.md): the shared B_ and
// D_ fixtures copied many times, each copy with its own UUIDs, laid out as
// Claude Code and Codex lay out their history.

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// WorkloadOptions size a workload.
type WorkloadOptions struct {
	ClaudeCopies int // copies of each Claude main transcript (60 gives ~600 MB)
	CodexCopies  int // copies of each Codex rollout (45 gives ~125 MB)
	Projects     int // Claude project folders the copies are spread over (20)
}

// WorkloadStats is what Workload wrote.
type WorkloadStats struct {
	Files int
	Bytes int64
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// mapUUID is the deterministic UUID that replaces old in copy k of file.
func mapUUID(k int, file, old string) string {
	sum := md5.Sum([]byte(fmt.Sprintf("c%d:%s|%s", k, file, old)))
	h := hex.EncodeToString(sum[:])
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Workload writes the workload under home (.claude/projects and
// .codex/sessions) from the fixtures in src.
func Workload(src, home string, o WorkloadOptions) (Tree, WorkloadStats, error) {
	t := Tree{Home: home, ClaudeDir: filepath.Join(home, ".claude", "projects"),
		CodexDir: filepath.Join(home, ".codex", "sessions"), Files: map[string]string{}}
	var st WorkloadStats
	if o.Projects <= 0 {
		o.Projects = 20
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return t, st, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	base := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	seq := 0
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return t, st, err
		}
		var copies int
		var pathOf func(k int, id string) string // where copy k, with its mapped id, goes
		switch {
		case strings.HasPrefix(name, "B_") && strings.HasSuffix(name, ".jsonl") &&
			len(data) >= 1024 && !strings.Contains(name, "subagents--") && !isFlatAgent(name):
			copies = o.ClaudeCopies
			pathOf = func(k int, id string) string {
				return filepath.Join(t.ClaudeDir, fmt.Sprintf("-home-bench-work-proj%02d", (seq+k)%o.Projects), id+".jsonl")
			}
		case strings.HasPrefix(name, "D_") && strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, "D_CodexBar_live-fork-"):
			copies = o.CodexCopies
			pathOf = func(k int, id string) string {
				when := base.Add(time.Duration(seq*977+k*5003) * time.Minute)
				return filepath.Join(t.CodexDir, when.Format("2006/01/02"), "rollout-"+when.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
			}
		default:
			continue
		}
		h, err := readHead(filepath.Join(src, name))
		if err != nil {
			return t, st, err
		}
		id := h.sessionID
		if strings.HasPrefix(name, "D_") {
			id = h.codexID
		}
		if id == "" {
			id = strings.TrimSuffix(name, ".jsonl")
		}
		for k := 0; k < copies; k++ {
			if err := writeTo(pathOf(k, mapUUID(k, name, id)), mapAll(data, k, name), &st); err != nil {
				return t, st, err
			}
		}
		seq++
	}
	return t, st, nil
}

// isFlatAgent reports an older sub-agent file (…_agent-<hex>.jsonl).
func isFlatAgent(name string) bool {
	i := strings.LastIndex(name, "_agent-")
	if i < 0 {
		return false
	}
	hexPart := strings.TrimSuffix(name[i+len("_agent-"):], ".jsonl")
	_, err := hex.DecodeString(hexPart + strings.Repeat("0", len(hexPart)%2))
	return err == nil
}

// mapAll replaces every lowercase UUID of data, consistently within copy k.
func mapAll(data []byte, k int, file string) []byte {
	memo := map[string]string{}
	return uuidRE.ReplaceAllFunc(data, func(old []byte) []byte {
		s, ok := memo[string(old)]
		if !ok {
			s = mapUUID(k, file, string(old))
			memo[string(old)] = s
		}
		return []byte(s)
	})
}

func writeTo(path string, data []byte, st *WorkloadStats) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	st.Files++
	st.Bytes += int64(len(data))
	return nil
}

// AppendPrompts appends a prompt and a reply to n Claude transcripts of the
// workload under home (every 97th, in path order), as Claude Code appends a
// turn: the prompt parented on the file's last entry, in the same session,
// with the word "zqmark<round>x<i>" to search for; the reply carries a
// small usage. It returns the files changed.
func AppendPrompts(home string, n int, round string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []string
	for i := 0; i < len(files) && len(out) < n; i += 97 {
		path := files[i]
		parent, err := lastUUID(path)
		if err != nil {
			return out, err
		}
		sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		k := len(out)
		u, a := mapUUID(k, path, "u"+round), mapUUID(k, path, "a"+round)
		user := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/bench/work",
			"sessionId": sid, "version": "2.1.0", "type": "user", "uuid": u, "timestamp": "2026-11-25T12:00:00.000Z",
			"message": map[string]any{"role": "user", "content": fmt.Sprintf("please check zqmark%sx%d now", round, k)}}
		reply := map[string]any{"parentUuid": u, "isSidechain": false, "userType": "external", "cwd": "/home/bench/work",
			"sessionId": sid, "version": "2.1.0", "type": "assistant", "uuid": a, "timestamp": "2026-11-25T12:00:01.000Z",
			"message": map[string]any{"id": "msg_" + a[:8], "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "text", "text": "Checked."}},
				"usage":   map[string]any{"input_tokens": 10, "output_tokens": 3}}}
		var b []byte
		for _, line := range []any{user, reply} {
			js, err := json.Marshal(line)
			if err != nil {
				return out, err
			}
			b = append(append(b, js...), '\n')
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return out, err
		}
		_, werr := f.Write(b)
		if cerr := f.Close(); werr != nil || cerr != nil {
			return out, errors.Join(werr, cerr)
		}
		out = append(out, path)
	}
	return out, nil
}

// lastUUID is the uuid of the last line of a transcript that has one.
func lastUUID(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var o struct {
			UUID string `json:"uuid"`
		}
		if json.Unmarshal([]byte(lines[i]), &o) == nil && o.UUID != "" {
			return o.UUID, nil
		}
	}
	return "", nil
}
