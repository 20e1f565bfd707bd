package store

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store/listcache"
)

// ErrRefused reports a session from elsewhere (a teammate's, through the
// team database) that ImportRaw does not copy: a row that would leave the
// store damaged or wrong by lazuli check, or that a load could not read.
// The error wrapping it is a *RefusedError saying which row and why.
var ErrRefused = errors.New("session refused")

// RefusedError is why CheckRaw refused a session: Event is set when the
// problem is one of its events, whose seq is Seq; Reason says what is
// wrong in a few words.
type RefusedError struct {
	Event  bool
	Seq    int64
	Reason string
}

func (e *RefusedError) Error() string {
	if e.Event {
		return fmt.Sprintf("event %d %s", e.Seq, e.Reason)
	}
	return e.Reason
}

// Unwrap makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// Limits of a copied session's own fields, in bytes.
const (
	maxRawWorktree = 255
	maxRawCreated  = 64
)

// CheckRaw validates r before ImportRaw writes any of it, with the rules
// lazuli check applies to stored rows (check_rows.go) and the limits a
// load applies: every payload decodes (a zstd frame within MaxEventSize,
// or plain JSON) to a valid event of its row's kind, whose size is its
// char_len; the events decode to at most MaxLoadBytes together (a bigger
// session could be stored but never loaded); seqs start at 1 or more and
// grow (gaps are allowed: events left out, as lazuli check allows them);
// char_len values add up; no compaction covers a negative seq. The
// session's worktree is a branch name, not a path that leaves a folder
// ("../../etc", "/etc"); its name is valid UTF-8, its created time too,
// short and without control characters. It returns a *RefusedError (errors.Is ErrRefused) for the
// first problem.
func CheckRaw(r RawSession) error {
	if err := checkRawSession(r.Session); err != nil {
		return err
	}
	cd, err := payloadCodecs.get()
	if err != nil {
		return err
	}
	defer payloadCodecs.put(cd)
	var prev, chars, decoded int64
	for _, e := range r.Events {
		refuse := func(format string, args ...any) error {
			return &RefusedError{Event: true, Seq: e.Seq, Reason: fmt.Sprintf(format, args...)}
		}
		switch {
		case e.Seq < 1:
			return refuse("has a seq below 1")
		case e.Seq <= prev:
			return refuse("comes after seq %d: seqs must grow", prev)
		case !e.Kind.Valid():
			return refuse("has an unknown kind %s", quoteField(string(e.Kind)))
		case e.CharLen < 0:
			return refuse("has a negative char_len")
		}
		prev = e.Seq
		js, err := cd.Payload(e.Data)
		if errors.Is(err, codec.ErrEventTooLarge) {
			return refuse("decodes to more than %s", mib(codec.MaxEventSize))
		}
		if err != nil || !utf8.Valid(js) {
			return refuse("cannot be decompressed")
		}
		if decoded += int64(len(js)); decoded > MaxLoadBytes {
			return refuse("brings the session past %s of decoded events, more than one load reads", mib(MaxLoadBytes))
		}
		ev, err := codec.DecodeEventJSON(js)
		if err != nil {
			return refuse("is not a valid event")
		}
		if ev.Kind != e.Kind {
			return refuse("is a %s stored as kind %s", ev.Kind, e.Kind)
		}
		if n := codec.CharLen(ev); n != e.CharLen {
			return refuse("has char_len %d, but its event's size is %d", e.CharLen, n)
		}
		var over bool
		if chars, over = listcache.CharSum(float64(chars) + float64(e.CharLen)); over {
			return refuse("brings the char_len values past what adds up")
		}
	}
	for _, c := range r.Compactions {
		switch {
		case c.AfterSeq < 0:
			return &RefusedError{Reason: fmt.Sprintf("a compaction covers up to seq %d", c.AfterSeq)}
		case !utf8.ValidString(c.Summary) || len(c.Summary) > codec.MaxEventSize:
			return &RefusedError{Reason: "a compaction's summary is not valid UTF-8 text within the size of an event"}
		case c.Created == "":
			return &RefusedError{Reason: "a compaction's created time is empty"}
		case checkRawText(c.Created, maxRawCreated) != "":
			return &RefusedError{Reason: "a compaction's created time " + checkRawText(c.Created, maxRawCreated)}
		}
	}
	return nil
}

// checkRawSession checks a copied session's own fields.
func checkRawSession(s Session) error {
	if why := checkWorktreeName(s.Worktree); why != "" {
		return &RefusedError{Reason: fmt.Sprintf("its worktree %s %s", quoteField(s.Worktree), why)}
	}
	if !utf8.ValidString(s.Name) {
		return &RefusedError{Reason: "its name is not valid UTF-8"}
	}
	if s.Created == "" {
		return &RefusedError{Reason: "its created time is empty"}
	}
	if why := checkRawText(s.Created, maxRawCreated); why != "" {
		return &RefusedError{Reason: "its created time " + why}
	}
	if s.DurationMS != nil && *s.DurationMS < 0 {
		return &RefusedError{Reason: "its duration is negative"}
	}
	if s.CostUSD != nil && (math.IsNaN(*s.CostUSD) || math.IsInf(*s.CostUSD, 0) || *s.CostUSD < 0) {
		return &RefusedError{Reason: "its cost is not a number of dollars"}
	}
	return nil
}

// checkRawText says what is wrong with a text field ("" when nothing):
// invalid UTF-8, a control character, or more than max bytes.
func checkRawText(s string, max int) string {
	switch {
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case len(s) > max:
		return fmt.Sprintf("is longer than %d bytes", max)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "holds a control character"
	}
	return ""
}

// checkWorktreeName says what is wrong with a worktree (branch) name, ""
// when nothing: it is empty, or a relative name whose parts are not "",
// "." or "..", without backslashes, control characters or a drive
// letter, as git's branch names are.
func checkWorktreeName(w string) string {
	if w == "" {
		return ""
	}
	if why := checkRawText(w, maxRawWorktree); why != "" {
		return why
	}
	if strings.HasPrefix(w, "/") || strings.ContainsRune(w, '\\') || (len(w) >= 2 && w[1] == ':') {
		return "is a path, not a branch name"
	}
	for _, part := range strings.Split(w, "/") {
		if part == "" || part == "." || part == ".." || strings.TrimSpace(part) != part {
			return "is a path, not a branch name"
		}
	}
	return ""
}

// quoteField quotes a hostile field for a one-line message: escaped as
// Go quotes it, at most 64 runes.
func quoteField(s string) string {
	if r := []rune(s); len(r) > 64 {
		return strconv.Quote(string(r[:64])) + "…"
	}
	return strconv.Quote(s)
}

// RawSession is a session read from elsewhere (a team database) with its
// stored payloads, to be copied into a store as Merge copies a session.
type RawSession struct {
	Session     Session // Name, Worktree, Created, Completed, DurationMS, CostUSD are kept
	Events      []RawEvent
	Compactions []Compaction // AfterSeq, Summary, Created are kept
}

// payloadCodecs decode payloads read from outside a Store.
var payloadCodecs encoderPool

// RawEvent is one events row: its payload is stored byte for byte.
type RawEvent struct {
	Seq     int64
	Kind    codec.Kind
	CharLen int64
	Data    []byte // a zstd frame, or the plain JSON of a v1 file (compressed on insert)
}
