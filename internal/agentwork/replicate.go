package agentwork

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Stats is what Replicate wrote.
type Stats struct {
	Copies int
	Files  int
	Bytes  int64
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// hex32RE is Gemini CLI's message ids.
	hex32RE = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	// openCodeRE is OpenCode's ids: a prefix, 12 hex digits of time and 14
	// random characters.
	openCodeRE = regexp.MustCompile(`\b(ses|msg|prt|evt)_([0-9a-f]{12})([0-9A-Za-z]{14})\b`)
	// geminiNameRE is a Gemini CLI chat file's name, which ends in the
	// first 8 digits of its session id.
	geminiNameRE = regexp.MustCompile(`^(session-.*-)([0-9a-f]{8})(\.jsonl?)$`)
	sessionIDRE  = regexp.MustCompile(`"sessionId":"([0-9a-f-]{36})"`)
)

// digest is the md5 of copy k of old, in hex.
func digest(k int, old string) string {
	sum := md5.Sum([]byte(fmt.Sprintf("c%d|%s", k, old)))
	return hex.EncodeToString(sum[:])
}

// Remap replaces the ids of s in copy k: every lowercase UUID (keeping its
// version digit), every OpenCode id (keeping its time part, so the order
// of ids stays the order of time) and, for Gemini CLI, every 32-digit
// message id. The same id maps to the same new id throughout a copy.
func Remap(agent string, s string, k int) string {
	s = uuidRE.ReplaceAllStringFunc(s, func(old string) string {
		h := digest(k, old)
		return h[:8] + "-" + h[8:12] + "-" + old[14:15] + h[13:16] + "-" + h[16:20] + "-" + h[20:32]
	})
	switch agent {
	case "gemini":
		s = hex32RE.ReplaceAllStringFunc(s, func(old string) string { return digest(k, old) })
	case "opencode":
		s = openCodeRE.ReplaceAllStringFunc(s, func(old string) string {
			m := openCodeRE.FindStringSubmatch(old)
			return m[1] + "_" + m[2] + base62(digest(k, old))[:14]
		})
	}
	return s
}

func base62(h string) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	var b strings.Builder
	for i := 0; i+1 < len(h); i += 2 {
		v, _ := hex.DecodeString(h[i : i+2])
		b.WriteByte(digits[int(v[0])%62])
	}
	return b.String() + b.String()
}

// isDB reports a SQLite file or its journal, copied through SQLite.
func isDB(name string) bool {
	return strings.HasSuffix(name, ".db") || strings.HasSuffix(name, ".db-wal") || strings.HasSuffix(name, ".db-shm")
}

// ReplicationVersion changes when Replicate writes another workload from
// the same seed.
const ReplicationVersion = 3

// Replicate writes copies of the agent's history under seed (a HOME the
// CLI wrote) into out (another HOME, emptied first), each with fresh ids,
// until it holds at least bytes: files (named after their ids) as new
// files, SQLite databases (OpenCode's, Copilot CLI's session store) as
// new rows. Files whose path holds no id are copied once.
func Replicate(a *Agent, seed, out string, bytes int64) (Stats, error) {
	var st Stats
	var err error
	from, to := a.HistoryDir(seed), a.HistoryDir(out)
	if err := os.RemoveAll(out); err != nil {
		return st, err
	}
	if st.Copies, err = Copies(a, seed, bytes); err != nil {
		return st, err
	}
	if err := copyFiles(a, from, to, st.Copies); err != nil {
		return st, err
	}
	for _, db := range dbsOf(a, seed) {
		if err := replicateDB(a.Name, db, filepath.Join(out, mustRel(seed, db)), st.Copies); err != nil {
			return st, fmt.Errorf("replicate %s: %w", db, err)
		}
	}
	st.Bytes, err = treeSize(a.HistoryDir(out), a)
	if err != nil {
		return st, err
	}
	err = filepath.WalkDir(a.HistoryDir(out), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			st.Files++
		}
		return err
	})
	return st, err
}

// Copies is how many copies of the history under seed Replicate writes
// to hold at least bytes: each copy is the seed's work once more.
func Copies(a *Agent, seed string, bytes int64) (int, error) {
	from := a.HistoryDir(seed)
	size, err := treeSize(from, a)
	if err != nil {
		return 0, err
	}
	if size == 0 {
		return 0, fmt.Errorf("no %s history in %s", a.Name, from)
	}
	return int((bytes + size - 1) / size), nil
}

func mustRel(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		panic(err)
	}
	return r
}

// dbsOf returns the agent's databases below seed.
func dbsOf(a *Agent, seed string) []string {
	switch a.Name {
	case "opencode":
		return []string{filepath.Join(a.HistoryDir(seed), "opencode.db")}
	case "copilot":
		p := filepath.Join(filepath.Dir(a.HistoryDir(seed)), "session-store.db")
		if _, err := os.Stat(p); err == nil {
			return []string{p}
		}
	}
	return nil
}

// treeSize is the bytes of the history below dir: OpenCode's database
// only (its folder also holds logs and snapshot repositories).
func treeSize(dir string, a *Agent) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || (a.Name == "opencode" && !isDB(d.Name())) {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}

// copyFiles writes the copies of every file below from that is not a
// database.
func copyFiles(a *Agent, from, to string, copies int) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || isDB(d.Name()) {
			return err
		}
		rel := mustRel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if Remap(a.Name, rel, 0) == rel && !geminiNameRE.MatchString(d.Name()) {
			return writeFile(filepath.Join(to, rel), data)
		}
		for k := 0; k < copies; k++ {
			nd := Remap(a.Name, string(data), k)
			if err := writeFile(filepath.Join(to, copyName(a.Name, rel, nd, k)), []byte(nd)); err != nil {
				return err
			}
		}
		return nil
	})
}

// copyName is the path of copy k of the file rel, whose new content is
// data: its ids mapped; a Gemini CLI chat named after its new session id.
func copyName(agent, rel, data string, k int) string {
	rel = Remap(agent, rel, k)
	if agent != "gemini" {
		return rel
	}
	dir, base := filepath.Split(rel)
	m := geminiNameRE.FindStringSubmatch(base)
	id := sessionIDRE.FindStringSubmatch(data)
	if m == nil || id == nil {
		return rel
	}
	return filepath.Join(dir, m[1]+id[1][:8]+m[3])
}
