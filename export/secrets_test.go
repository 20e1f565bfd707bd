package export

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/display"
)

// The fake secrets below are built at run time, so that no token-shaped
// literal sits in the source for repository scanners to flag.

// fake returns n pseudo-random characters from alphabet, the same for the
// same seed.
func fake(seed uint64, alphabet string, n int) string {
	r := rand.New(rand.NewPCG(seed, 42))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alphaNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	base64s  = alphaNum + "+/"
	urlChars = alphaNum + "_-"
	hexLower = "0123456789abcdef"
)

var (
	awsKeyID     = "AK" + "IA" + fake(1, upperNum, 16)
	awsSecret    = fake(2, base64s, 40)
	githubToken  = "gh" + "p_" + fake(3, alphaNum, 36)
	githubPAT    = "github" + "_pat_" + fake(4, alphaNum, 22) + "_" + fake(5, alphaNum, 59)
	gitlabToken  = "gl" + "pat-" + fake(6, urlChars, 20)
	anthropicKey = "sk-" + "ant-api03-" + fake(7, urlChars, 93) + "AA"
	openAIKey    = "sk-" + "proj-" + fake(8, urlChars, 156)
	openAILegacy = "sk-" + fake(9, alphaNum, 48)
	slackToken   = "xo" + "xb-" + fake(10, "0123456789", 12) + "-" + fake(11, "0123456789", 13) + "-" + fake(12, alphaNum, 24)
	slackHook    = "https://hooks." + "slack.com/services/T" + fake(13, upperNum, 8) + "/B" + fake(14, upperNum, 8) + "/" + fake(15, alphaNum, 24)
	googleKey    = "AI" + "za" + fake(16, urlChars, 35)
	stripeKey    = "sk" + "_live_" + fake(17, alphaNum, 24)
	twilioKey    = "S" + "K" + fake(18, hexLower, 32)
	twilioToken  = fake(19, hexLower, 32)
	sendgridKey  = "S" + "G." + fake(20, urlChars, 22) + "." + fake(21, urlChars, 43)
	npmToken     = "np" + "m_" + fake(22, alphaNum, 36)
	pypiToken    = "py" + "pi-AgEIcHlwaS5vcmc" + fake(23, urlChars, 70)
	jwtToken     = "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "ey" + "JzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ." + fake(24, urlChars, 43)
	bearerToken  = fake(25, alphaNum, 32)
	basicCreds   = base64.StdEncoding.EncodeToString([]byte("deploy:" + fake(26, alphaNum, 14)))
	privateKey   = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + wrap(fake(27, base64s, 320), 64) + "\n-----END RSA PRIVATE KEY-----"
	openSSHKey   = "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" + wrap(fake(28, base64s, 200), 70) + "\n-----END OPENSSH PRIVATE KEY-----"
	dbPassword   = "Xq7" + fake(29, alphaNum, 9)
	genericValue = fake(30, alphaNum, 24)
)

func wrap(s string, width int) string {
	var lines []string
	for len(s) > width {
		lines = append(lines, s[:width])
		s = s[width:]
	}
	return strings.Join(append(lines, s), "\n")
}

// secretCase is one text and the one secret the scanner must find in it,
// or none when rule is ""; a case that finds nothing names the rule it
// tries to fool in against.
type secretCase struct {
	name, text, rule, secret string
	against                  string
}

func secretCases() []secretCase {
	keyBody := fake(31, base64s, 300)
	truncatedKey := "-----BEGIN " + "PRIVATE KEY-----\n" + wrap(keyBody, 64)
	jsonKey := `{"type": "service_account", "private_key": "-----BEGIN ` + `PRIVATE KEY-----\n` +
		strings.ReplaceAll(wrap(keyBody, 64), "\n", `\n`) + `\n-----END PRIVATE KEY-----\n", "client_email": "x@y.iam"}`
	jsonKeySecret := jsonKey[strings.Index(jsonKey, "-----BEGIN") : strings.Index(jsonKey, `KEY-----\n",`)+len("KEY-----")]
	imageData := base64.StdEncoding.EncodeToString([]byte(fake(32, alphaNum+"\x00\x01\x02\xff\x89PNG", 3000)))
	return append([]secretCase{
		// Positive: one per rule.
		{"aws key id", "aws_access_key_id = " + awsKeyID + "\n", "aws-access-key-id", awsKeyID, ""},
		{"aws secret by name", "aws_secret_access_key=" + awsSecret, "aws-secret-access-key", awsSecret, ""},
		{"aws secret in yaml", `SecretAccessKey: "` + awsSecret + `"`, "aws-secret-access-key", awsSecret, ""},
		{"github classic", "git remote set-url origin https://" + githubToken + "@github.com/o/r.git", "github-token", githubToken, ""},
		{"github fine-grained", "GH_TOKEN=" + githubPAT, "github-token", githubPAT, ""},
		{"gitlab", "export GITLAB_TOKEN=" + gitlabToken + " && glab auth", "gitlab-token", gitlabToken, ""},
		{"anthropic", "ANTHROPIC_API_KEY=" + anthropicKey, "anthropic-api-key", anthropicKey, ""},
		{"openai project", `client = OpenAI(api_key="` + openAIKey + `")`, "openai-api-key", openAIKey, ""},
		{"openai legacy", "key: " + openAILegacy, "openai-api-key", openAILegacy, ""},
		{"slack token", "SLACK_BOT_TOKEN=" + slackToken, "slack-token", slackToken, ""},
		{"slack webhook", "curl -X POST " + slackHook + " -d @msg.json", "slack-webhook", slackHook, ""},
		{"google", "https://maps.googleapis.com/maps/api/js?key=" + googleKey + "&callback=init", "google-api-key", googleKey, ""},
		{"stripe", "stripe.api_key = '" + stripeKey + "'", "stripe-secret-key", stripeKey, ""},
		{"twilio api key", "Twilio client created with key " + twilioKey + " for the account", "twilio-api-key", twilioKey, ""},
		{"twilio auth token", "TWILIO_AUTH_TOKEN=" + twilioToken, "twilio-auth-token", twilioToken, ""},
		{"sendgrid", "SENDGRID_API_KEY=" + sendgridKey, "sendgrid-api-key", sendgridKey, ""},
		{"npm", "//registry.npmjs.org/:_authToken=" + npmToken, "npm-token", npmToken, ""},
		{"pypi", "[pypi]\nusername = __token__\npassword = " + pypiToken + "\n", "pypi-token", pypiToken, ""},
		{"private key", "cat id_rsa\n" + privateKey + "\n", "private-key", privateKey, ""},
		{"openssh key", openSSHKey, "private-key", openSSHKey, ""},
		{"private key without end", "Read key.pem\n" + truncatedKey + "\n  (+12 more lines)", "private-key", truncatedKey, ""},
		{"private key in json", jsonKey, "private-key", jsonKeySecret, ""},
		{"jwt", "token: " + jwtToken, "jwt", jwtToken, ""},
		{"postgres", "DATABASE_URL=postgres://app:" + dbPassword + "@db.internal:5432/app", "connection-string", dbPassword, ""},
		{"mongodb srv", "mongodb+srv://admin:" + dbPassword + "@cluster0.mongodb.net/test", "connection-string", dbPassword, ""},
		{"redis no user", "redis://:" + dbPassword + "@cache:6379/0", "connection-string", dbPassword, ""},
		{"amqp", "amqps://worker:" + dbPassword + "@mq/vhost", "connection-string", dbPassword, ""},
		{"bearer header", `curl -H "Authorization: Bearer ` + bearerToken + `" https://api.internal`, "authorization-header", bearerToken, ""},
		{"basic header", "Authorization: Basic " + basicCreds, "authorization-header", basicCreds, ""},
		{"bearer alone", "use Bearer " + bearerToken + " for the call", "bearer-token", bearerToken, ""},
		{"generic password", `DB_PASSWORD="Tr0ub4dor&3x-` + dbPassword + `"`, "generic-secret", "Tr0ub4dor&3x-" + dbPassword, ""},
		{"generic api key yaml", "  api_key: " + genericValue + "\n", "generic-secret", genericValue, ""},
		{"generic json", `{"clientSecret": "` + genericValue + `"}`, "generic-secret", genericValue, ""},
		{"generic query", "GET /v1/items?access_token=" + genericValue + "&page=2", "generic-secret", genericValue, ""},

		// Negative.
		{"uuid", "session 550e8400-e29b-41d4-a716-446655440000 started", "", "", "generic-secret"},
		{"uuid field", `{"request_id": "550e8400-e29b-41d4-a716-446655440000"}`, "", "", "generic-secret"},
		{"git sha", "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: A <a@b.c>", "", "", "aws-secret-access-key"},
		{"git sha near key id", "placeholder id AKIAIOSFODNN7EXAMPLE at 3f786850e387550fdab836ed7e6dc881de23001b", "", "", "aws-secret-access-key"},
		{"base64 image", `<img src="data:image/png;base64,` + imageData + `">`, "", "", "jwt"},
		{"aws doc example", "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", "", "aws-access-key-id"},
		{"github placeholder", "GITHUB_TOKEN=gh" + "p_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "", "", "github-token"},
		{"github repeated", "gh" + "p_" + strings.Repeat("a", 36), "", "", "github-token"},
		{"openai placeholder", "OPENAI_API_KEY=sk-" + "proj-your-api-key-goes-here-0123456789ABCDEF", "", "", "openai-api-key"},
		{"sk in words", "the task-runner-handles-very-long-kebab-case-option-names and sk-learn-is-scikit-learn-nickname-here", "", "", "openai-api-key"},
		{"stripe test key", "sk_" + "test_" + fake(33, alphaNum, 24), "", "", "stripe-secret-key"},
		{"slack placeholder", "SLACK_TOKEN=xo" + "xb-your-token-here", "", "", "slack-token"},
		{"private key mention", `if strings.HasPrefix(s, "-----BEGIN RSA PRIVATE KEY-----") {`, "", "", "private-key"},
		{"jwt header only", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 is the header", "", "", "jwt"},
		{"postgres default password", "postgres://postgres:postgres@localhost:5432/dev", "", "", "connection-string"},
		{"postgres placeholder password", "postgres://user:password@localhost/db", "", "", "connection-string"},
		{"postgres variables", "postgres://${DB_USER}:${DB_PASS}@db/app", "", "", "connection-string"},
		{"postgres template", "postgresql://app:<password>@db/app", "", "", "connection-string"},
		{"url without password", "see https://user@github.com/o/r and redis://cache:6379", "", "", "connection-string"},
		{"bearer variable", `curl -H "Authorization: Bearer $TOKEN" https://api`, "", "", "authorization-header"},
		{"bearer placeholder", `Authorization: Bearer <token>`, "", "", "authorization-header"},
		{"bearer prose", "Bearer authentication is described in RFC 6750", "", "", "bearer-token"},
		{"gitlab placeholder", "GITLAB_TOKEN=gl" + "pat-xxxxxxxxxxxxxxxxxxxx", "", "", "gitlab-token"},
		{"anthropic placeholder", "ANTHROPIC_API_KEY=sk-" + "ant-api03-your-key-goes-here-0123456789abcdefABCDEF", "", "", "anthropic-api-key"},
		{"slack webhook doc", "https://hooks." + "slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "", "", "slack-webhook"},
		{"google too short", "AI" + "zaSyShort-key", "", "", "google-api-key"},
		{"twilio key without twilio", "sid " + twilioKey + " of some service", "", "", "twilio-api-key"},
		{"twilio token placeholder", "TWILIO_AUTH_TOKEN=your_auth_token", "", "", "twilio-auth-token"},
		{"sendgrid short", "msg.Send(); SG.Init()", "", "", "sendgrid-api-key"},
		{"npm env var", "npm_config_cache=/tmp/npm-cache npm_package_version=1.2.3", "", "", "npm-token"},
		{"pypi placeholder", "password = py" + "pi-AgEIcHlwaS5vcmc...", "", "", "pypi-token"},
		{"generic placeholder", "API_KEY=<your-key>", "", "", "generic-secret"},
		{"generic changeme", "password: changeme123", "", "", "generic-secret"},
		{"generic env lookup", `token = os.environ["GITHUB_TOKEN"]`, "", "", "generic-secret"},
		{"generic process env", `apiKey: process.env.OPENAI_API_KEY,`, "", "", "generic-secret"},
		{"generic dotted", "SECRET_KEY = settings.DJANGO_SECRET_KEY", "", "", "generic-secret"},
		{"generic type", "secret_key: SecretStr = Field(...)", "", "", "generic-secret"},
		{"generic number", "max_tokens = 4096", "", "", "generic-secret"},
		{"generic tokenizer", `tokenizer = "bert-base-uncased-model"`, "", "", "generic-secret"},
		{"generic hash field", `password_hash = "5f4dcc3b5aa765d61d8327deb882cf99"`, "", "", "generic-secret"},
		{"generic path", "private_key: /etc/ssl/private/server.key", "", "", "generic-secret"},
		{"generic file", `credentials = "service-account.json"`, "", "", "generic-secret"},
		{"generic call", `token := r.Header.Get("X-Token")`, "", "", "generic-secret"},
		{"generic prose", "The token: a short string that identifies the user", "", "", "generic-secret"},
		{"generic redacted", "password: [REDACTED:generic-secret]", "", "", "generic-secret"},
		{"generic template", `password: "{{ .Values.dbPassword }}"`, "", "", "generic-secret"},
		{"generic f-string", `print(f"Testing token: '{test_token}'")`, "", "", "generic-secret"},
		{"short", "sk-", "", "", "generic-secret"},
		{"empty", "", "", "", "generic-secret"},
	}, moreSecretCases()...)
}

func TestScanText(t *testing.T) {
	for _, tc := range secretCases() {
		t.Run(tc.name, func(t *testing.T) {
			var ts textScanner
			spans := ts.scan(tc.text)
			var got []string
			for _, sp := range spans {
				got = append(got, rules[sp.rule].id+": "+tc.text[sp.start:sp.end])
			}
			if tc.rule == "" {
				if len(got) != 0 {
					t.Errorf("scan(%q) = %q, want nothing", tc.text, got)
				}
				return
			}
			want := tc.rule + ": " + tc.secret
			if len(got) != 1 || got[0] != want {
				t.Errorf("scan(%q) = %q, want [%q]", tc.text, got, want)
			}
		})
	}
}

// Every rule has a positive and a negative case above.
func TestEveryRuleTested(t *testing.T) {
	positive, negative := map[string]bool{}, map[string]bool{}
	for _, tc := range secretCases() {
		positive[tc.rule] = true
		negative[tc.against] = true
	}
	for _, r := range rules {
		if !positive[r.id] {
			t.Errorf("rule %s has no positive case", r.id)
		}
		if !negative[r.id] {
			t.Errorf("rule %s has no negative case", r.id)
		}
	}
}

func TestAWSSecretNearKeyID(t *testing.T) {
	text := "User name,Access key ID,Secret access key\ndeploy," + awsKeyID + "," + awsSecret + "\n"
	var ts textScanner
	var got []string
	for _, sp := range ts.scan(text) {
		got = append(got, rules[sp.rule].id+": "+text[sp.start:sp.end])
	}
	want := []string{"aws-access-key-id: " + awsKeyID, "aws-secret-access-key: " + awsSecret}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("scan = %q, want %q", got, want)
	}
}

func TestScanSeveralOnOneLine(t *testing.T) {
	text := "token=" + genericValue + " secret=" + dbPassword + "Zz9 " + githubToken
	var ts textScanner
	spans := ts.scan(text)
	if len(spans) != 3 {
		t.Fatalf("scan found %d secrets, want 3: %v", len(spans), spans)
	}
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			t.Errorf("spans overlap or are unsorted: %v", spans)
		}
	}
}

func TestPreview(t *testing.T) {
	for _, tc := range []struct{ rule, secret, want string }{
		{"aws-access-key-id", "AKIA" + "ABCDEFGHIJKLMNOP", "AKIA…(20 chars)"},
		{"generic-secret", "hunter2!", "hu…(8 chars)"},
		{"generic-secret", "héllo-wörld", "hé…(11 chars)"},
		{"private-key", privateKey, "-----BEGIN RSA PRIVATE KEY-----…(" + display.Count(len(privateKey)) + " chars)"},
	} {
		if got := preview(tc.rule, tc.secret); got != tc.want {
			t.Errorf("preview(%q, %.20q) = %q, want %q", tc.rule, tc.secret, got, tc.want)
		}
	}
}

func FuzzScanText(f *testing.F) {
	for _, tc := range secretCases() {
		f.Add(tc.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var ts textScanner
		spans := ts.scan(s)
		for i, sp := range spans {
			if sp.start < 0 || sp.end > len(s) || sp.start >= sp.end {
				t.Fatalf("span %v out of range of %d bytes", sp, len(s))
			}
			if i > 0 && sp.start < spans[i-1].end {
				t.Fatalf("spans overlap: %v", spans)
			}
		}
	})
}
