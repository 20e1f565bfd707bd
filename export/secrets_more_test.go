package export

import (
	"encoding/base64"
	"strings"
	"testing"
)

const (
	hexMixed = "0123456789abcdefABCDEF"
	upperDig = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	lowerDig = "abcdefghijklmnopqrstuvwxyz0123456789"
	letters  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	bech32   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// vendorSample is a realistic token of one vendor rule, in the kind of
// text an agent transcript holds it in.
type vendorSample struct {
	rule, prefix, token, context string // context holds %s where the token goes
}

func vendorSamples() []vendorSample {
	f := func(seed uint64, alphabet string, n int) string { return fake(seed, alphabet, n) }
	discordID := base64.RawStdEncoding.EncodeToString([]byte("123456789012345678"))
	return []vendorSample{
		{"discord-bot-token", "", discordID + "." + f(101, urlChars, 6) + "." + f(102, urlChars, 38), "client.run('%s')"},
		{"telegram-bot-token", "", "738290156:AA" + f(103, urlChars, 33), "curl https://api.telegram.org/bot%s/getMe"},
		{"azure-storage-key", "", f(104, base64s, 86) + "==", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=%s;EndpointSuffix=core.windows.net"},
		{"azure-ad-client-secret", "", "aB3" + "8Q~" + f(105, alphaNum, 34), `AZURE_CLIENT_SECRET="%s"`},
		{"1password-token", "op" + "s_eyJ", f(206, base64s, 300), "export OP_SERVICE_ACCOUNT_TOKEN=%s"},
		{"age-secret-key", "AGE-" + "SECRET-KEY-1", f(107, bech32, 58), "# created: 2026-01-01\n%s\n"},
		{"adobe-client-secret", "p8" + "e-", f(108, alphaNum, 32), "secret: %s"},
		{"alibaba-access-key-id", "LT" + "AI", f(109, alphaNum, 20), "accessKeyId: %s"},
		{"artifactory-token", "AK" + "Cp", f(110, alphaNum, 69), "X-JFrog-Art-Api: %s"},
		{"atlassian-api-token", "ATA" + "TT3", f(111, urlChars, 186), "JIRA_API_TOKEN=%s"},
		{"authress-access-key", "sc" + "_", f(190, lowerDig, 12) + "." + f(191, lowerDig, 5) + ".acc_" + f(192, lowerDig, 20) + "." + f(193, urlChars, 60), "AUTHRESS_KEY=%s"},
		{"clickhouse-cloud-key", "4b" + "1d", f(112, alphaNum, 38), "key secret %s"},
		{"clojars-api-token", "CLO" + "JARS_", f(113, lowerDig, 60), "CLOJARS_PASSWORD %s"},
		{"cloudflare-origin-ca-key", "v1" + ".0-", f(114, hexLower, 24) + "-" + f(115, hexLower, 146), "origin_ca_key = %s"},
		{"databricks-api-token", "da" + "pi", f(116, hexLower, 32), "DATABRICKS_TOKEN=%s"},
		{"defined-networking-token", "dn" + "key-", f(117, lowerDig, 26) + "-" + f(118, lowerDig, 52), "DN_API_KEY=%s"},
		{"digitalocean-token", "do" + "p_v1_", f(119, hexLower, 64), "doctl auth init -t %s"},
		{"doppler-api-token", "dp" + ".pt.", f(120, alphaNum, 43), "DOPPLER_TOKEN=%s"},
		{"duffel-api-token", "duffel" + "_live_", f(121, urlChars, 43), "Authorization: %s"},
		{"dynatrace-api-token", "dt0c" + "01.", f(122, upperDig, 24) + "." + f(123, alphaNum, 64), "Api-Token %s"},
		{"easypost-api-token", "EZ" + "AK", f(124, alphaNum, 54), "EasyPost::Client.new(api_key: '%s')"},
		{"facebook-page-access-token", "EA" + "AC", f(125, alphaNum, 120), "page token %s"},
		{"flyio-access-token", "fo" + "1_", f(126, urlChars, 43), "FLY_API_TOKEN=%s"},
		{"frameio-api-token", "fio" + "-u-", f(127, urlChars, 64), "token %s"},
		{"gitlab-session-cookie", "", f(128, lowerDig, 32), "Cookie: _gitlab" + "_session=%s; other=1"},
		{"grafana-token", "gl" + "sa_", f(129, alphaNum, 32) + "_" + f(130, hexLower, 8), "GRAFANA_SA=%s"},
		{"harness-api-key", "pa" + "t.", f(131, urlChars, 22) + "." + f(132, alphaNum, 24) + "." + f(133, alphaNum, 20), "x-api-key: %s"},
		{"hashicorp-tf-api-token", "", f(134, alphaNum, 14) + ".atlas" + "v1." + f(135, urlChars, 67), `token = "%s"`},
		{"heroku-api-key", "HR" + "KU-AA", f(136, urlChars, 58), "HEROKU_API_KEY=%s"},
		{"huggingface-token", "hf" + "_", f(137, letters, 34), "huggingface-cli login --token %s"},
		{"infracost-api-token", "ic" + "o-", f(138, alphaNum, 32), "INFRACOST_API_KEY=%s"},
		{"intra42-client-secret", "s-s4" + "t2ud-", f(139, hexLower, 64), "secret %s"},
		{"linear-api-key", "lin" + "_api_", f(140, alphaNum, 40), "LINEAR_API_KEY=%s"},
		{"maxmind-license-key", "", f(141, alphaNum, 6) + "_" + f(142, alphaNum, 29) + "_m" + "mk", "LicenseKey %s"},
		{"microsoft-teams-webhook", ".webhook.office" + ".com/webhookb2/", f(143, hexLower, 8) + "-1a2b-3c4d-5e6f-" + f(144, hexLower, 12) + "@" + f(145, hexLower, 8) + "-1a2b-3c4d-5e6f-" + f(146, hexLower, 12) + "/IncomingWebhook/" + f(147, hexLower, 32) + "/" + f(148, hexLower, 8) + "-1a2b-3c4d-5e6f-" + f(149, hexLower, 12), "curl -d @card.json https://acme%s"},
		{"new-relic-key", "NR" + "AK-", f(150, upperDig, 27), "NEW_RELIC_API_KEY=%s"},
		{"notion-api-token", "nt" + "n_", f(151, "0123456789", 11) + f(152, alphaNum, 35), "NOTION_TOKEN=%s"},
		{"octopus-deploy-api-key", "AP" + "I-", f(153, upperDig, 26), "X-Octopus-ApiKey: %s"},
		{"openshift-user-token", "sha" + "256~", f(154, urlChars, 43), "oc login --token=%s"},
		{"perplexity-api-key", "pp" + "lx-", f(155, alphaNum, 48), "PPLX_API_KEY=%s"},
		{"planetscale-token", "pscale" + "_pw_", f(156, alphaNum, 43), "password: %s"},
		{"postman-api-token", "PM" + "AK-", f(157, hexLower, 24) + "-" + f(158, hexLower, 34), "x-api-key: %s"},
		{"prefect-api-token", "pn" + "u_", f(159, alphaNum, 36), "prefect cloud login -k %s"},
		{"pulumi-api-token", "pu" + "l-", f(160, hexLower, 40), "PULUMI_ACCESS_TOKEN=%s"},
		{"readme-api-token", "rd" + "me_", f(161, lowerDig, 70), "README_API_KEY=%s"},
		{"rubygems-api-token", "rubygems" + "_", f(162, hexLower, 48), ":rubygems_api_key: %s"},
		{"scalingo-api-token", "tk" + "-us-", f(163, urlChars, 48), "SCALINGO_API_TOKEN=%s"},
		{"sendinblue-api-token", "xkey" + "sib-", f(164, hexLower, 64) + "-" + f(165, alphaNum, 16), "api-key: %s"},
		{"sentry-token", "sntr" + "yu_", f(166, hexLower, 64), "SENTRY_AUTH_TOKEN=%s"},
		{"settlemint-token", "sm" + "_pat_", f(167, alphaNum, 16), "SETTLEMINT_TOKEN=%s"},
		{"shippo-api-token", "shippo" + "_live_", f(168, hexLower, 40), "ShippoToken %s"},
		{"shopify-token", "shp" + "at_", f(169, hexLower, 32), "X-Shopify-Access-Token: %s"},
		{"sourcegraph-access-token", "sg" + "p_", f(170, hexLower, 16) + "_" + f(171, hexLower, 40), "SRC_ACCESS_TOKEN=%s"},
		{"square-access-token", "sq0" + "atp-", f(172, urlChars, 22), "SQUARE_ACCESS_TOKEN=%s"},
		{"typeform-api-token", "tf" + "p_", f(173, urlChars, 59), "TYPEFORM_TOKEN=%s"},
		{"vault-token", "hv" + "s.", f(174, urlChars, 95), "VAULT_TOKEN=%s vault kv get secret/app"},
	}
}

// moreSecretCases are the cases of the rules added after gitleaks' default
// rules were compared (docs/secrets.md): a realistic sample per rule, and
// the same place with a placeholder, which must not be found.
func moreSecretCases() []secretCase {
	var out []secretCase
	for _, v := range vendorSamples() {
		secret := v.prefix + v.token
		text := strings.Replace(v.context, "%s", secret, 1)
		out = append(out, secretCase{v.rule, text, v.rule, secret, ""})
		placeholder := v.prefix + strings.Repeat("x", len(v.token))
		out = append(out, secretCase{v.rule + " placeholder", strings.Replace(v.context, "%s", placeholder, 1), "", "", v.rule})
	}
	ftpPassword := "Zq8" + fake(180, alphaNum, 10)
	return append(out,
		// Issue 15: every URL scheme with a password; Azure; Discord.
		secretCase{"discord env", "DISCORD_TOKEN=" + base64.RawStdEncoding.EncodeToString([]byte("987654321098765432")) + "." + fake(187, urlChars, 6) + "." + fake(188, urlChars, 38), "discord-bot-token", base64.RawStdEncoding.EncodeToString([]byte("987654321098765432")) + "." + fake(187, urlChars, 6) + "." + fake(188, urlChars, 38), ""},
		secretCase{"discord shape not an id", "discord: " + "Mabcdefghijklmnopqrstuvwx.abcdef." + fake(189, urlChars, 30), "", "", "discord-bot-token"},
		secretCase{"https password", "git clone https://deploy:" + ftpPassword + "@git.example.org/team/app.git", "connection-string", ftpPassword, ""},
		secretCase{"ftp password", "lftp ftp://backup:" + ftpPassword + "@files.internal/upload", "connection-string", ftpPassword, ""},
		secretCase{"sftp password", "sftp://ops:" + ftpPassword + "@host:22/", "connection-string", ftpPassword, ""},
		secretCase{"smtp password", "SMTP_URL=smtps://mailer:" + ftpPassword + "@smtp.mail.net:465", "connection-string", ftpPassword, ""},
		secretCase{"git+ssh password", "git+ssh://me:" + ftpPassword + "@host/repo", "connection-string", ftpPassword, ""},
		secretCase{"url port not password", "proxy https://proxy.corp:8443@upstream and http://localhost:3000/api", "", "", "connection-string"},
		secretCase{"url user only", "https://" + "x-access-token@github.com/o/r.git", "", "", "connection-string"},
		secretCase{"url short password", "ftp://anonymous:me@files.example.net", "", "", "connection-string"},
		secretCase{"curl user", "curl -u admin:" + ftpPassword + " https://jenkins.internal/api/json", "curl-user-password", ftpPassword, ""},
		secretCase{"curl long user", `curl --user "ci:` + ftpPassword + `" https://nexus/repo`, "curl-user-password", ftpPassword, ""},
		secretCase{"docker uid", "docker run -u 1000:1001 --rm image", "", "", "curl-user-password"},
		secretCase{"git push -u", "git push -u origin main && sort -u list.txt", "", "", "curl-user-password"},
		secretCase{"curl variables", `curl -u "$USER:$PASS" https://x`, "", "", "curl-user-password"},
		secretCase{"aws a3t key id", "key A3T" + "X" + fake(181, upperNum, 16) + " in use", "aws-access-key-id", "A3TX" + fake(181, upperNum, 16), ""},
		secretCase{"gitlab deploy token", "CI_DEPLOY_PASSWORD=gl" + "dt-" + fake(182, urlChars, 20), "gitlab-token", "gldt-" + fake(182, urlChars, 20), ""},
		secretCase{"gitlab runner token", "--token GR1348941" + fake(183, urlChars, 20), "gitlab-token", "GR1348941" + fake(183, urlChars, 20), ""},
		secretCase{"slack app token", "SLACK_APP_TOKEN=xa" + "pp-1-A0" + fake(184, upperDig, 9) + "-" + fake(185, "0123456789", 13) + "-" + fake(186, hexLower, 64), "slack-token", "xapp-1-A0" + fake(184, upperDig, 9) + "-" + fake(185, "0123456789", 13) + "-" + fake(186, hexLower, 64), ""},
		secretCase{"odbc pwd", "Server=db;Database=app;Uid=sa;Pwd=" + ftpPassword + ";", "generic-secret", ftpPassword, ""},
		secretCase{"pwd env", "PWD=/home/user/project", "", "", "generic-secret"},
	)
}

// TestNoFindingsInOrdinaryText: code, hashes, ids and URLs that look a
// little like secrets are not reported by any rule.
func TestNoFindingsInOrdinaryText(t *testing.T) {
	texts := []string{
		"commit 3f786850e387550fdab836ed7e6dc881de23001b\nsha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"integrity sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+5tgGZlM5Ux1y/GR1348941+abc==",
		`func (s *Server) handle(w http.ResponseWriter, r *http.Request) { token := r.URL.Query().Get("token") }`,
		"docker run --rm -u $(id -u):$(id -g) -v $PWD:/src golang:1.23 go test ./...",
		"see https://github.com/gitleaks/gitleaks and http://localhost:8080/health?x=1",
		"550e8400-e29b-41d4-a716-446655440000 6ba7b810-9dad-11d1-80b4-00c04fd430c8",
		"import { ApiKey } from './api-keys'; const hf_hub_download = require('hf')",
		"The MTU is 1500; NTFS and OTP are acronyms. Mt. Everest, Nt.dll, Od.",
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"go: downloading github.com/stretchr/testify v1.9.0\n\tgithub.com/davecgh/go-spew v1.1.1 h1:vj9j/u1bqnvCEfJOwUhtlOARqs3+rkHYY13jYWTU97c=",
		"API-GATEWAY-ROUTE and sha256~short and glpat-short and AccountKey=<your-key>",
	}
	for _, text := range texts {
		var ts textScanner
		for _, sp := range ts.scan(text) {
			t.Errorf("%s found %q in %q", rules[sp.rule].id, text[sp.start:sp.end], text)
		}
	}
}
