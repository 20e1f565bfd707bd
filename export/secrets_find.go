package export

import (
	"math"
	"regexp"
	"strings"
	"sync"
)

// privateKeyHead and privateKeyTail are the armour lines of a PEM, OpenSSH
// or PGP private key.
var (
	privateKeyHead = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)
	})
	privateKeyTail = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)
	})
)

// Limits of a private key block: how far its END line is looked for, and
// how much key material a block without one must have.
const (
	maxKeyBlock    = 64 << 10
	minKeyMaterial = 64
)

// findPrivateKeys finds private key blocks from their BEGIN line to their
// END line; a block whose END line is missing (a shortened tool result)
// runs to the end of its key material. A BEGIN line with no key material
// after it (code that checks for one) is not a secret.
func findPrivateKeys(t *hitText, r *rule) []span {
	s := t.s
	var out []span
	next := 0
	for _, h := range t.hitsOf(r) {
		if h < next {
			continue
		}
		head := privateKeyHead().FindStringIndex(s[h:])
		if head == nil {
			continue
		}
		body := h + head[1]
		limit := min(len(s), body+maxKeyBlock)
		end, material := keyBodyEnd(s[body:limit])
		if tail := privateKeyTail().FindStringIndex(s[body:limit]); tail != nil {
			end, material = tail[1], countKeyMaterial(s[body:body+tail[0]])
		}
		if material < minKeyMaterial {
			continue
		}
		out = append(out, span{start: h, end: body + end})
		next = body + end
	}
	return out
}

// keyBodyEnd returns where the key material at the start of s ends and how
// much of it there is: the rest of the BEGIN line, then whole lines of
// base64 (a literal "\n", as in a JSON file, counts as part of a line), or
// PEM headers such as "Proc-Type: 4,ENCRYPTED".
func keyBodyEnd(s string) (end, material int) {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s) - i
		}
		line := strings.TrimSpace(strings.TrimSuffix(s[i:i+j], "\r"))
		switch {
		case i == 0 && line == "":
			// The BEGIN line ends here; the material follows.
		case i == 0 && !isKeyLine(line):
			// Material on the BEGIN line itself ends at the first other character.
			k := strings.IndexFunc(s[:j], func(r rune) bool { return !isKeyRune(r) })
			if k < 0 {
				k = j
			}
			return k, countKeyMaterial(s[:k])
		case isKeyLine(line):
			material += countKeyMaterial(line)
			end = i + j
		case strings.HasPrefix(line, "Proc-Type:") || strings.HasPrefix(line, "DEK-Info:"):
			end = i + j
		default:
			return end, material
		}
		i += j + 1
	}
	return end, material
}

func isKeyLine(line string) bool {
	return line != "" && strings.IndexFunc(line, func(r rune) bool { return !isKeyRune(r) }) < 0
}

// isKeyRune reports whether r can be part of base64 key material, allowing
// the backslashes of escaped newlines.
func isKeyRune(r rune) bool {
	return r < 0x80 && (isAlnum(byte(r)) || r == '+' || r == '/' || r == '=' || r == '\\')
}

func countKeyMaterial(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) || s[i] == '+' || s[i] == '/' {
			n++
		}
	}
	return n
}

// awsSecretNear is a 40-character base64 run, the shape of an AWS secret
// access key.
var awsSecretNear = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^` + b64 + `])([` + b64 + `]{40})(?:[^` + b64 + `=]|$)`)
})

// awsNearDistance is how far from an access key ID a secret key is looked for.
const awsNearDistance = 300

// akiaRule is the index of the rule of AWS access key IDs, whose matches
// anchor the search for their secret keys; set in init.
var akiaRule int

// findAWSSecretsNearKeyIDs finds AWS secret access keys written without a
// telling name but near an access key ID (an "aws configure" echo, a CSV of
// credentials): a 40-character base64 run with upper- and lower-case letters
// and a digit, and high entropy, so that git SHAs and words do not match.
func findAWSSecretsNearKeyIDs(t *hitText, _ *rule) []span {
	var out []span
	for _, id := range matchAnchored(t, &rules[akiaRule]) {
		lo, hi := max(0, id.start-awsNearDistance), min(len(t.s), id.end+awsNearDistance)
		for _, m := range awsSecretNear().FindAllStringSubmatchIndex(t.s[lo:hi], -1) {
			secret := t.s[lo+m[2] : lo+m[3]]
			if hasUpper(secret) && hasLower(secret) && hasDigit(secret) && entropy(secret) >= 4 &&
				notAWSExample(secret) && !isPlaceholder(secret) {
				out = append(out, span{start: lo + m[2], end: lo + m[3]})
			}
		}
	}
	return out
}

// assignment describes secrets written as NAME = VALUE, NAME: VALUE,
// "NAME": "VALUE", NAME := VALUE, NAME => VALUE (and, with flags,
// --NAME VALUE): the name must end with one of suffixes, at a word
// boundary ("DB_PASSWORD", "dbPassword", but not "bypass").
type assignment struct {
	suffixes []string
	value    func(v string) bool // the value's shape; nil accepts any
	flags    bool                // also --name VALUE
}

// Limits of an assigned value, in bytes.
const (
	minValue = 8
	maxValue = 200
	maxName  = 64
)

// findAssignments parses an assignment around each keyword hit.
func findAssignments(t *hitText, r *rule) []span {
	var out []span
	lastName := -1
	for _, h := range t.hitsOf(r) {
		nameEnd := h
		for nameEnd < len(t.s) && isNameByte(t.lower[nameEnd]) {
			nameEnd++
		}
		if nameEnd == lastName {
			continue // another keyword of the same name
		}
		lastName = nameEnd
		nameStart := h
		for nameStart > 0 && h-nameStart < maxName && isNameByte(t.lower[nameStart-1]) {
			nameStart--
		}
		if !r.assign.nameMatches(t, nameStart, nameEnd) {
			continue
		}
		a, b, ok := assignedValue(t.s, nameEnd, r.assign.flags && strings.HasPrefix(t.s[nameStart:], "--"))
		if !ok {
			continue
		}
		v := t.s[a:b]
		if (r.assign.value == nil || r.assign.value(v)) && r.acceptable(v, "") {
			out = append(out, span{start: a, end: b})
		}
	}
	return out
}

// nameMatches reports whether the name lower[start:end] ends with one of
// the suffixes at a word boundary: the name's start, a '_', '-' or '.',
// a digit, or a capital letter after a small one (camelCase).
func (as *assignment) nameMatches(t *hitText, start, end int) bool {
	name := t.lower[start:end]
	for _, suf := range as.suffixes {
		if len(suf) > len(name) || string(name[len(name)-len(suf):]) != suf {
			continue
		}
		p := end - len(suf)
		if p == start {
			return true
		}
		prev := t.s[p-1]
		if prev == '_' || prev == '-' || prev == '.' || (prev >= '0' && prev <= '9') ||
			(t.s[p] >= 'A' && t.s[p] <= 'Z' && prev >= 'a' && prev <= 'z') {
			return true
		}
	}
	return false
}

// assignedValue parses what follows a name at s[i:]: an optional closing
// quote, a separator (=, :, :=, =>; not == or ::), and a value, quoted
// with ", ' or ` (on one line, without spaces) or bare (up to a space,
// quote, ',', ';' or '&'). With space set, a space alone separates too
// (--password VALUE). It returns the value's range.
func assignedValue(s string, i int, space bool) (int, int, bool) {
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	j := skipBlanks(s, i)
	switch rest := s[j:]; {
	case strings.HasPrefix(rest, ":="), strings.HasPrefix(rest, "=>"):
		j += 2
	case strings.HasPrefix(rest, "=="), strings.HasPrefix(rest, "::"):
		return 0, 0, false
	case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, ":"):
		j++
	case space && j > i:
	default:
		return 0, 0, false
	}
	j = skipBlanks(s, j)
	if j >= len(s) {
		return 0, 0, false
	}
	if q := s[j]; q == '"' || q == '\'' || q == '`' {
		k := j + 1
		for k < len(s) && k-j <= maxValue+1 && s[k] != q && !isSpace(s[k]) && s[k] != '\r' {
			k++
		}
		if k >= len(s) || s[k] != q || k-j-1 < minValue || k-j-1 > maxValue {
			return 0, 0, false
		}
		return j + 1, k, true
	}
	k := j
	for k < len(s) && k-j <= maxValue && !isSpace(s[k]) && s[k] != '\r' && strings.IndexByte("\"'`,;&()[]{}<>", s[k]) < 0 {
		k++
	}
	if k < len(s) && !isSpace(s[k]) && s[k] != '\r' && strings.IndexByte("\"'`,;&", s[k]) < 0 {
		return 0, 0, false // the value runs into code: a call, an index, a template
	}
	if k-j < minValue || k-j > maxValue {
		return 0, 0, false
	}
	return j, k, true
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// isNameByte reports whether c (lower-cased) can be part of a variable,
// key or option name.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// isAWSSecretShape accepts exactly 40 base64 characters.
func isAWSSecretShape(v string) bool {
	if len(v) != 40 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != '+' && v[i] != '/' {
			return false
		}
	}
	return true
}

// isHex32 accepts 32 lower-case hex digits, a Twilio auth token.
func isHex32(v string) bool {
	if len(v) != 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !(v[i] >= '0' && v[i] <= '9' || v[i] >= 'a' && v[i] <= 'f') {
			return false
		}
	}
	return true
}

// notAWSExample rejects the key pair of Amazon's documentation.
func notAWSExample(s string) bool { return !strings.Contains(s, "EXAMPLE") }

// validOpenAIKey accepts an sk- key with mixed case and digits, which the
// words of a kebab-case name ("sk-some-long-option-name") lack, and that
// is not an Anthropic key.
func validOpenAIKey(s string) bool {
	return !strings.HasPrefix(s, "sk-ant-") && hasUpper(s) && hasLower(s) && hasDigit(s)
}

// notWord rejects credentials that are a plain word ("Bearer authentication").
func notWord(s string) bool {
	return hasDigit(s) || hasUpper(s[1:]) || strings.ContainsAny(s, "+/=._~-")
}

// identifier matches a bare or dotted name (settings.SECRET_KEY,
// process.env.API_TOKEN, SecretStr): a reference to a secret, not one.
var identifier = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$`)
})

// fileName matches a value that names a file holding a secret.
var fileName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\.(?:json|pem|key|crt|cer|p12|pfx|txt|ya?ml|env|toml|ini|cfg|conf|gpg|asc)$`)
})

// validGenericSecret accepts a value assigned to a secret-sounding name
// when it looks like a secret: at least two kinds of characters (lower,
// upper, digit, symbol), enough entropy for its length, and not a
// reference (a variable, a dotted name, an identifier without digits), a
// path, a URL or a file name.
func validGenericSecret(s string) bool {
	switch {
	case strings.ContainsAny(s[:1], "$%@&*/~.") || strings.Contains(s, "://"):
		return false
	case identifier().MatchString(s) && (!hasDigit(s) || strings.Contains(s, ".")):
		return false
	case fileName().MatchString(s):
		return false
	case charClasses(s) < 2:
		return false
	}
	return entropy(s) >= min(3, 0.85*math.Log2(float64(len(s))))
}

// placeholders are parts of values that say they are not a real secret.
var placeholders = []string{
	"xxxx", "****", "...", "…", "<", ">", "${", "{{", "$(", "%s", "%(",
	"your", "example", "changeme", "change_me", "change-me", "placeholder", "dummy", "redacted",
	"replace", "sample", "fake", "12345678", "abcdefgh", "qwerty", "lorem",
}

// defaultPasswords are stock passwords of local services (Docker images,
// tutorials): a connection string with one is a local default, not a leak.
var defaultPasswords = map[string]bool{
	"password": true, "pass": true, "passwd": true, "secret": true, "postgres": true, "root": true,
	"admin": true, "guest": true, "test": true, "mysql": true, "redis": true, "mongo": true, "user": true,
}

// isPlaceholder reports whether a candidate secret is an obvious stand-in:
// it says so, is a template, or repeats one character.
func isPlaceholder(s string) bool {
	lower := strings.ToLower(s)
	for _, p := range placeholders {
		if strings.Contains(lower, p) {
			return true
		}
	}
	if strings.Contains(s, "{") && strings.Contains(s, "}") {
		return true // a template: f"{token}", "{password}"
	}
	for i := 1; i < len(s); i++ {
		if s[i] != s[0] {
			return false
		}
	}
	return true
}

// minPassword is the shortest password in a URL or a -u option that is
// reported.
const minPassword = 4

// isPort reports a "password" of at most five digits: a port
// (https://host:8443@…) or a group id (-u 1000:1001), not a secret.
func isPort(s string) bool {
	if len(s) > 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// acceptable applies a rule's checks to a candidate secret; for connection
// strings, user is the user name before it.
func (r *rule) acceptable(secret, user string) bool {
	if secret == "" || isPlaceholder(secret) {
		return false
	}
	if r.userGroup > 0 {
		lower := strings.ToLower(secret)
		return len(secret) >= minPassword && !isPort(secret) && !defaultPasswords[lower] && lower != strings.ToLower(user) &&
			!strings.HasPrefix(secret, ":") && !strings.HasPrefix(secret, "$")
	}
	minH := r.minEntropy
	if minH == 0 {
		minH = minEntropyDefault
	}
	if minH > 0 && entropy(secret) < minH {
		return false
	}
	return r.valid == nil || r.valid(secret)
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// charClasses counts the kinds of characters in s: lower case, upper case,
// digits, anything else.
func charClasses(s string) int {
	var lower, upper, digit, other int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower = 1
		case c >= 'A' && c <= 'Z':
			upper = 1
		case c >= '0' && c <= '9':
			digit = 1
		default:
			other = 1
		}
	}
	return lower + upper + digit + other
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }
func hasUpper(s string) bool { return strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") }
func hasLower(s string) bool { return strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") }
