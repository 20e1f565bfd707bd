package export

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A rule finds one kind of secret in a text. Rules are tried in order, and
// a match that overlaps one of an earlier rule is dropped, so the specific
// token formats come before the generic patterns.
//
// A rule looks only where one of its keywords occurs, so most of a text is
// read once per keyword (a fast substring search) and never by a regular
// expression. At each keyword hit, re is matched anchored (from back bytes
// before the hit); rules that cannot be written that way have a find
// function or an assignment.
type rule struct {
	id, desc string
	keywords []string              // lower-case literals
	kws      []int                 // the keywords' indexes in keywordTable; set in init
	pattern  string                // compiled into re, anchored at the match start
	re       func() *regexp.Regexp // compiled on first use: Lazuli starts faster
	back     int                   // how far before a keyword hit the match starts
	free     bool                  // the match may follow a word character
	// always runs find on every text, with or without a keyword hit
	// (find then looks at the hits itself).
	always bool
	// find replaces pattern for rules a regular expression cannot express.
	find func(t *hitText, r *rule) []span
	// nearKeyID marks the rule of AWS secret keys found near key IDs,
	// whose find function reads rules and so is set in init.
	nearKeyID bool
	// assign describes secrets written as NAME = VALUE.
	assign *assignment
	// groups are the submatches that can hold the secret, first match
	// wins; none means the whole match.
	groups []int
	// userGroup is the submatch holding the user name of a connection
	// string, which its password must differ from; 0 for none.
	userGroup int
	// valid is an extra check of a candidate secret; nil accepts it.
	valid func(secret string) bool
	// minEntropy is the least Shannon entropy, in bits per byte, of a
	// secret; 0 means minEntropyDefault, a negative value no check.
	minEntropy float64
}

// span is a byte range [start, end) of a text, found by a rule.
type span struct {
	start, end int
	rule       int // index into rules
}

// minEntropyDefault rejects runs like "AAAA…" or "abababab" that have a
// token's shape but not its randomness.
const minEntropyDefault = 2.5

// Character classes shared by the patterns.
const (
	b64     = `A-Za-z0-9+/`
	urlSafe = `A-Za-z0-9_-`
	alnum   = `A-Za-z0-9`
)

// tokenEnd matches the end of a URL-safe token: a character that cannot be
// part of it, or the end of the text.
const tokenEnd = `(?:[^` + urlSafe + `]|$)`

// rules is the rule table, tried in this order: the token formats, the
// vendor tokens (secrets_vendors.go), then the patterns that need
// context. docs/secrets.md lists it as users see it.
var rules = slices.Concat(tokenRules, vendorRules, contextRules)

// tokenRules find secrets by their own format.
var tokenRules = []rule{
	{
		id: "private-key", desc: "Private key",
		keywords: []string{"-----begin "}, find: findPrivateKeys,
	},
	{
		id: "aws-access-key-id", desc: "AWS access key ID",
		keywords: []string{"akia", "asia", "abia", "acca", "a3t"},
		pattern:  `((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})\b`, groups: []int{1},
		valid: notAWSExample, minEntropy: 3,
	},
	{
		id: "aws-secret-access-key", desc: "AWS secret access key",
		keywords: []string{"secret"},
		assign: &assignment{
			suffixes: []string{"aws_secret_access_key", "secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret_key", "aws_secret"},
			value:    isAWSSecretShape,
		},
		valid: notAWSExample, minEntropy: 3.5,
	},
	{
		id: "aws-secret-access-key", desc: "AWS secret access key",
		keywords: []string{"akia", "asia"}, nearKeyID: true, // find is set in init
	},
	{
		id: "github-token", desc: "GitHub token",
		keywords: []string{"gh", "github_pat_"},
		pattern:  `(gh[pousr]_[` + alnum + `]{36,251}|github_pat_[A-Za-z0-9_]{22,251})\b`, groups: []int{1},
	},
	{
		id: "gitlab-token", desc: "GitLab token",
		keywords: []string{"glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glffct-", "glcbt-", "glimt-", "glagent-", "gloas-", "glptt-", "gr1348941"},
		pattern: `((?:glpat|gldt|glft|glsoat|glrt|glffct)-[` + urlSafe + `]{20,}(?:\.[0-9a-z]{9})?|glcbt-[A-Za-z0-9]{1,5}_[` + urlSafe + `]{20,}|` +
			`glimt-[` + urlSafe + `]{25}|glagent-[` + urlSafe + `]{50,}|gloas-[` + urlSafe + `]{64}|glptt-[0-9a-f]{40}|GR1348941[` + urlSafe + `]{20})` + tokenEnd,
		groups: []int{1},
	},
	{
		id: "anthropic-api-key", desc: "Anthropic API key",
		keywords: []string{"sk-ant-"},
		pattern:  `(sk-ant-[` + urlSafe + `]{32,})` + tokenEnd, groups: []int{1},
	},
	{
		id: "openai-api-key", desc: "OpenAI API key",
		keywords: []string{"sk-"},
		pattern:  `(sk-(?:(?:proj|svcacct|admin)-)?[` + urlSafe + `]{32,})` + tokenEnd, groups: []int{1},
		valid: validOpenAIKey, minEntropy: 3.5,
	},
	{
		id: "slack-token", desc: "Slack token",
		keywords: []string{"xox", "xapp-"},
		pattern:  `((?:xox[abposre]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{10,})(?:[^A-Za-z0-9-]|$)`, groups: []int{1},
		valid: hasDigit,
	},
	{
		id: "slack-webhook", desc: "Slack webhook URL",
		keywords: []string{"hooks.slack.com/"}, back: len("https://"),
		pattern: `(https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,})`, groups: []int{1},
	},
	{
		id: "google-api-key", desc: "Google API key",
		keywords: []string{"aiza"},
		pattern:  `(AIza[` + urlSafe + `]{35})` + tokenEnd, groups: []int{1},
	},
	{
		id: "stripe-secret-key", desc: "Stripe live secret key",
		keywords: []string{"k_live_", "k_prod_"}, back: 1,
		pattern: `([sr]k_(?:live|prod)_[` + alnum + `]{20,})\b`, groups: []int{1},
	},
	{
		id: "twilio-api-key", desc: "Twilio API key",
		keywords: []string{"twilio"}, find: findShape(twilioKeySID),
	},
	{
		id: "twilio-auth-token", desc: "Twilio auth token",
		keywords: []string{"twilio"},
		assign: &assignment{
			suffixes: []string{"twilio_auth_token", "twilioauthtoken", "twilio-auth-token", "twilio_token", "twilio_auth"},
			value:    isHex32,
		},
	},
	{
		id: "sendgrid-api-key", desc: "SendGrid API key",
		keywords: []string{"sg."},
		pattern:  `(SG\.[` + urlSafe + `]{22}\.[` + urlSafe + `]{43})` + tokenEnd, groups: []int{1},
	},
	{
		id: "npm-token", desc: "npm access token",
		keywords: []string{"npm_"},
		pattern:  `(npm_[` + alnum + `]{36})\b`, groups: []int{1},
	},
	{
		id: "pypi-token", desc: "PyPI upload token",
		keywords: []string{"pypi-ageichlwas5vcmc"},
		pattern:  `(pypi-AgEIcHlwaS5vcmc[` + urlSafe + `]{50,})` + tokenEnd, groups: []int{1},
	},
	{
		id: "jwt", desc: "JSON Web Token",
		keywords: []string{"eyj"},
		pattern:  `(eyJ[` + urlSafe + `]{8,}\.eyJ[` + urlSafe + `]{8,}\.[` + urlSafe + `]{16,})` + tokenEnd, groups: []int{1},
		minEntropy: 3.5,
	},
}

// contextRules find secrets by what is around them: a URL's user
// information, a header, an option, a telling name.
var contextRules = []rule{
	{
		id: "connection-string", desc: "Password in a URL or connection string",
		keywords: []string{"://"}, find: findConnectionStrings,
		pattern: `(?i)[a-z][a-z0-9+.-]*://([^:/?#@\s"'<>]*):([^@/?#\s"'<>]+)@`,
		groups:  []int{2}, userGroup: 1, minEntropy: -1,
	},
	{
		id: "curl-user-password", desc: "Password given to curl -u",
		keywords: []string{"-u", "--user"},
		pattern:  `(?:-u|--user)(?:=|[ \t]+)["']?([^\s:"'$]{1,64}):([^\s"']+)`,
		groups:   []int{2}, userGroup: 1, minEntropy: -1,
	},
	{
		id: "authorization-header", desc: "Credentials in an Authorization header",
		keywords: []string{"authorization"},
		pattern:  `(?i)authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot)\s+([A-Za-z0-9._~+/-]{8,}=*)`,
		groups:   []int{1}, valid: notWord, minEntropy: 3,
	},
	{
		id: "bearer-token", desc: "Bearer token",
		keywords: []string{"bearer"},
		pattern:  `(?i)bearer\s+([A-Za-z0-9._~+/-]{20,}=*)`,
		groups:   []int{1}, valid: hasDigit, minEntropy: 3.5,
	},
	{
		id: "generic-secret", desc: "Secret assigned to a password, secret, token or key",
		keywords: []string{"pass", "secret", "token", "key", "credential", "pwd"},
		assign:   &assignment{suffixes: genericSuffixes, flags: true},
		valid:    validGenericSecret, minEntropy: -1,
	},
}

// genericSuffixes are how the name of a variable, key or option holding a
// secret ends ("DB_PASSWORD", "apiKey", "client-secret", …).
var genericSuffixes = []string{
	"password", "passwd", "passphrase", "pass", "secret", "token",
	"api_key", "apikey", "api-key", "access_key", "accesskey", "access-key", "secret_key", "secretkey", "secret-key",
	"private_key", "privatekey", "private-key", "auth_key", "authkey", "auth-key", "signing_key", "signingkey",
	"encryption_key", "encryptionkey", "master_key", "masterkey", "credential", "credentials", "pwd",
}

// keywordTable holds every rule's keywords once. bigramIndex maps the
// first two bytes of keywords to 1 + their index in bigramKeywords, which
// lists the keywords starting with them. All are set in init.
var (
	keywordTable   []string
	bigramIndex    [1 << 16]uint8
	bigramKeywords [][]int
)

func init() {
	index := map[string]int{}
	for i := range rules {
		r := &rules[i]
		for _, k := range r.keywords {
			id, ok := index[k]
			if !ok {
				id = len(keywordTable)
				index[k] = id
				keywordTable = append(keywordTable, k)
				addBigram(k, id)
			}
			r.kws = append(r.kws, id)
		}
		if r.nearKeyID {
			r.find = findAWSSecretsNearKeyIDs
		}
		if r.pattern != "" {
			pattern := `^(?:` + r.pattern + `)`
			r.re = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
		}
	}
	akiaRule = ruleIndex("aws-access-key-id")
}

// addBigram files keyword k (number id) under its first two bytes.
func addBigram(k string, id int) {
	bg := uint16(k[0])<<8 | uint16(k[1])
	if bigramIndex[bg] == 0 {
		if len(bigramKeywords) == 255 {
			panic("export: more than 255 keyword prefixes") // bigramIndex holds uint8
		}
		bigramKeywords = append(bigramKeywords, nil)
		bigramIndex[bg] = uint8(len(bigramKeywords))
	}
	e := bigramIndex[bg] - 1
	bigramKeywords[e] = append(bigramKeywords[e], id)
}

func ruleIndex(id string) int {
	for i := range rules {
		if rules[i].id == id {
			return i
		}
	}
	panic("export: no rule " + id)
}

// hitText is a text being scanned: its lower-cased copy and the offsets
// of every keyword in it.
type hitText struct {
	s      string
	lower  []byte
	hits   [][]int // by keyword
	merged []int   // scratch for hitsOf
}

// reset prepares t for the text s: one pass over it finds every keyword,
// looking each position's two bytes up in bigramIndex.
func (t *hitText) reset(s string) {
	t.s = s
	t.lower = appendLowerASCII(t.lower[:0], s)
	if t.hits == nil {
		t.hits = make([][]int, len(keywordTable))
	}
	for k := range t.hits {
		t.hits[k] = t.hits[k][:0]
	}
	lower := t.lower
	for i := 0; i+1 < len(lower); i++ {
		e := bigramIndex[uint16(lower[i])<<8|uint16(lower[i+1])]
		if e == 0 {
			continue
		}
		for _, k := range bigramKeywords[e-1] {
			kw := keywordTable[k]
			if len(lower)-i >= len(kw) && string(lower[i:i+len(kw)]) == kw {
				t.hits[k] = append(t.hits[k], i)
			}
		}
	}
}

// keyword returns the offsets of keyword k in the text.
func (t *hitText) keyword(k int) []int { return t.hits[k] }

// anyHit reports whether one of r's keywords occurs in the text.
func (t *hitText) anyHit(r *rule) bool {
	for _, k := range r.kws {
		if len(t.keyword(k)) > 0 {
			return true
		}
	}
	return false
}

// hitsOf returns the sorted offsets of all of r's keywords. The result is
// valid until the next call.
func (t *hitText) hitsOf(r *rule) []int {
	if len(r.kws) == 1 {
		return t.keyword(r.kws[0])
	}
	t.merged = t.merged[:0]
	for _, k := range r.kws {
		t.merged = append(t.merged, t.keyword(k)...)
	}
	slices.Sort(t.merged)
	return t.merged
}

// appendLowerASCII appends s with its ASCII letters lower-cased; every
// other byte, and so every offset, is kept.
func appendLowerASCII(dst []byte, s string) []byte {
	n := len(dst)
	dst = append(dst, s...)
	for i, c := range dst[n:] {
		if c >= 'A' && c <= 'Z' {
			dst[n+i] = c + ('a' - 'A')
		}
	}
	return dst
}

// matchAnchored applies r's anchored pattern at each keyword hit.
func matchAnchored(t *hitText, r *rule) []span {
	var out []span
	next := 0
	for _, h := range t.hitsOf(r) {
		start := h - r.back
		if start < next || start < 0 {
			continue
		}
		if !r.free && start > 0 && isWordASCII(t.s[start-1]) {
			continue
		}
		if sp, end, ok := r.matchAt(t.s, start); ok {
			out = append(out, sp)
			next = end
		}
	}
	return out
}

// matchAt matches r's pattern at s[start:] and returns the secret's span,
// the end of the match, and whether it is an acceptable secret.
func (r *rule) matchAt(s string, start int) (span, int, bool) {
	m := r.re().FindStringSubmatchIndex(s[start:])
	if m == nil {
		return span{}, 0, false
	}
	a, b := secretGroup(m, r.groups)
	if a < 0 {
		return span{}, 0, false
	}
	user := ""
	if g := r.userGroup; g > 0 && m[2*g] >= 0 {
		user = s[start+m[2*g] : start+m[2*g+1]]
	}
	if !r.acceptable(s[start+a:start+b], user) {
		return span{}, 0, false
	}
	return span{start: start + a, end: start + b}, start + m[1], true
}

// secretGroup returns the range of the first of groups that matched, or
// of the whole match when groups is empty; -1, -1 when none did.
func secretGroup(m []int, groups []int) (int, int) {
	if len(groups) == 0 {
		return m[0], m[1]
	}
	for _, g := range groups {
		if 2*g+1 < len(m) && m[2*g] >= 0 {
			return m[2*g], m[2*g+1]
		}
	}
	return -1, -1
}

// findConnectionStrings matches r's pattern from the start of the scheme
// before each "://".
func findConnectionStrings(t *hitText, r *rule) []span {
	var out []span
	next := 0
	for _, h := range t.hitsOf(r) {
		start := h
		for start > 0 && h-start < 16 && (isAlnum(t.s[start-1]) || strings.IndexByte("+.-", t.s[start-1]) >= 0) {
			start--
		}
		for start < h && !isAlpha(t.s[start]) {
			start++ // a scheme starts with a letter
		}
		if start == h || start < next || (start > 0 && isWordASCII(t.s[start-1])) {
			continue
		}
		if sp, end, ok := r.matchAt(t.s, start); ok {
			out = append(out, sp)
			next = end
		}
	}
	return out
}

// twilioKeySID is a Twilio API key SID, looked for in texts that mention
// Twilio (the "SK" prefix alone is too common).
var twilioKeySID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(SK[0-9a-fA-F]{32})\b`) })

// findShape returns a find function for a token without a prefix to
// look for: re, whose group 1 is the secret, is matched over the whole of
// a text that holds one of the rule's keywords (words that say such a
// token may be near).
func findShape(re func() *regexp.Regexp) func(*hitText, *rule) []span {
	return func(t *hitText, r *rule) []span {
		var out []span
		for _, m := range re().FindAllStringSubmatchIndex(t.s, -1) {
			if r.acceptable(t.s[m[2]:m[3]], "") {
				out = append(out, span{start: m[2], end: m[3]})
			}
		}
		return out
	}
}

func isWordASCII(c byte) bool { return isAlnum(c) || c == '_' }

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnum(c byte) bool {
	return isAlpha(c) || c >= '0' && c <= '9'
}
