package export

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
)

// vendorRules find the tokens of services whose tokens carry their own
// prefix (gitleaks' default rules are the reference; docs/secrets.md
// lists which of them Lazuli covers and why the others are left out). A
// prefix makes a rule precise without a telling name around the token, so
// each is anchored at its prefix and checked for randomness like the
// rules in secrets.go. Test-mode keys are left out, as sk_test_ is.
var vendorRules = []rule{
	{
		// A Discord token has no fixed prefix, and looking for one at
		// every word that could start it tripled the scan's time: the
		// whole text is matched only when it mentions Discord or calls
		// run( as discord.py's client.run(TOKEN) does; elsewhere the
		// token is found from the two dots around its 6-character middle
		// part (findDiscordTokens), with no keyword needed.
		id: "discord-bot-token", desc: "Discord bot token",
		keywords: []string{"discord", ".run("}, always: true, find: findDiscordTokens,
		valid: validDiscordToken, minEntropy: 3.5,
	},
	{
		id: "telegram-bot-token", desc: "Telegram bot token",
		keywords: []string{":aa"}, find: findTelegramTokens,
		pattern: `([0-9]{8,10}:AA[` + urlSafe + `]{33})` + tokenEnd, groups: []int{1}, minEntropy: 3.5,
	},
	{
		id: "azure-storage-key", desc: "Azure storage or Service Bus account key",
		keywords: []string{"accountkey", "sharedaccesskey"},
		pattern:  `(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([` + b64 + `]{40,88}={0,2})`, groups: []int{1},
		minEntropy: 4,
	},
	{
		id: "azure-ad-client-secret", desc: "Azure AD client secret",
		keywords: []string{"q~"}, back: 4,
		pattern: `([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)`, groups: []int{1},
		valid: hasUpperLowerDigit, minEntropy: 3.5,
	},
	vendorToken("1password-token", "1Password service account token or secret key",
		[]string{"ops_eyj", "a3-"},
		`ops_eyJ[`+b64+`]{250,}={0,3}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`),
	vendorToken("age-secret-key", "age encryption secret key", []string{"age-secret-key-1"},
		`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
	vendorToken("adobe-client-secret", "Adobe client secret", []string{"p8e-"}, `p8e-[A-Za-z0-9]{32}`),
	vendorToken("alibaba-access-key-id", "Alibaba Cloud AccessKey ID", []string{"ltai"}, `LTAI[A-Za-z0-9]{20}`),
	vendorToken("artifactory-token", "Artifactory API key or reference token", []string{"akcp", "cmvmd"},
		`AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}`),
	vendorToken("atlassian-api-token", "Atlassian API token", []string{"atatt3"}, `ATATT3[A-Za-z0-9_=-]{186}`),
	vendorToken("authress-access-key", "Authress service client access key", []string{"sc_", "ext_", "scauth_", "authress_"},
		`(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}`),
	vendorToken("clickhouse-cloud-key", "ClickHouse Cloud API secret key", []string{"4b1d"}, `4b1d[A-Za-z0-9]{38}`),
	vendorToken("clojars-api-token", "Clojars API token", []string{"clojars_"}, `CLOJARS_[A-Za-z0-9]{60}`),
	vendorToken("cloudflare-origin-ca-key", "Cloudflare Origin CA key", []string{"v1.0-"}, `v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`),
	vendorToken("databricks-api-token", "Databricks API token", []string{"dapi"}, `dapi[a-f0-9]{32}(?:-[0-9])?`),
	vendorToken("defined-networking-token", "Defined Networking API token", []string{"dnkey-"},
		`dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}`),
	vendorToken("digitalocean-token", "DigitalOcean token", []string{"doo_v1_", "dop_v1_", "dor_v1_"}, `do[opr]_v1_[a-f0-9]{64}`),
	vendorToken("doppler-api-token", "Doppler API token", []string{"dp.pt."}, `dp\.pt\.[A-Za-z0-9]{43}`),
	vendorToken("duffel-api-token", "Duffel live API token", []string{"duffel_live_"}, `duffel_live_[A-Za-z0-9_=-]{43}`),
	vendorToken("dynatrace-api-token", "Dynatrace API token", []string{"dt0c01."}, `dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`),
	vendorToken("easypost-api-token", "EasyPost API token", []string{"ezak"}, `EZAK[A-Za-z0-9]{54}`),
	vendorToken("facebook-page-access-token", "Facebook page access token", []string{"eaam", "eaac"}, `EAA[MC][A-Za-z0-9]{100,}`),
	vendorToken("flyio-access-token", "Fly.io access token", []string{"fo1_", "fm1a_", "fm1r_", "fm2_"},
		`fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[`+b64+`]{100,}={0,3}|fm2_[`+b64+`]{100,}={0,3}`),
	vendorToken("frameio-api-token", "Frame.io API token", []string{"fio-u-"}, `fio-u-[A-Za-z0-9_=-]{64}`),
	vendorToken("gitlab-session-cookie", "GitLab session cookie", []string{"_gitlab_session="}, `_gitlab_session=([0-9a-z]{32})`),
	vendorToken("grafana-token", "Grafana API key, cloud or service account token", []string{"eyjrijoi", "glc_", "glsa_"},
		`eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[`+b64+`]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`),
	vendorToken("harness-api-key", "Harness access token", []string{"pat.", "sat."},
		`(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`),
	{
		id: "hashicorp-tf-api-token", desc: "Terraform Cloud API token",
		keywords: []string{".atlasv1."}, back: 14,
		pattern: `([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})` + tokenEnd, groups: []int{1}, minEntropy: 3.5,
	},
	vendorToken("heroku-api-key", "Heroku API key", []string{"hrku-aa"}, `HRKU-AA[0-9A-Za-z_-]{58}`),
	{
		id: "huggingface-token", desc: "Hugging Face access token",
		keywords: []string{"hf_", "api_org_"},
		pattern:  `((?:hf|api_org)_[A-Za-z0-9]{34})` + tokenEnd, groups: []int{1},
		valid: func(s string) bool { return hasUpper(s) && hasLower(s[3:]) }, minEntropy: 3.5,
	},
	vendorToken("infracost-api-token", "Infracost API token", []string{"ico-"}, `ico-[A-Za-z0-9]{32}`),
	vendorToken("intra42-client-secret", "Intra42 client secret", []string{"s-s4t2"}, `s-s4t2(?:ud|af)-[a-f0-9]{64}`),
	vendorToken("linear-api-key", "Linear API key", []string{"lin_api_"}, `lin_api_[A-Za-z0-9]{40}`),
	{
		id: "maxmind-license-key", desc: "MaxMind license key",
		keywords: []string{"_mmk"}, back: 36,
		pattern: `([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)` + tokenEnd, groups: []int{1}, minEntropy: 3.5,
	},
	{
		id: "microsoft-teams-webhook", desc: "Microsoft Teams webhook URL",
		keywords: []string{".webhook.office.com/webhookb2/"}, free: true, // after the tenant's host name
		pattern: `(\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{80,})` + tokenEnd, groups: []int{1}, minEntropy: 3,
	},
	vendorToken("new-relic-key", "New Relic API, insert or browser key", []string{"nrak-", "nrii-", "nrjs-"},
		`NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9-]{32}|NRJS-[a-f0-9]{19}`),
	vendorToken("notion-api-token", "Notion API token", []string{"ntn_"}, `ntn_[0-9]{11}[A-Za-z0-9]{35}`),
	vendorToken("octopus-deploy-api-key", "Octopus Deploy API key", []string{"api-"}, `API-[A-Z0-9]{26}`),
	vendorToken("openshift-user-token", "OpenShift user token", []string{"sha256~"}, `sha256~[A-Za-z0-9_-]{43}`),
	vendorToken("perplexity-api-key", "Perplexity API key", []string{"pplx-"}, `pplx-[A-Za-z0-9]{48}`),
	vendorToken("planetscale-token", "PlanetScale token or password", []string{"pscale_tkn_", "pscale_oauth_", "pscale_pw_"},
		`pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}`),
	vendorToken("postman-api-token", "Postman API token", []string{"pmak-"}, `PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`),
	vendorToken("prefect-api-token", "Prefect API token", []string{"pnu_"}, `pnu_[A-Za-z0-9]{36}`),
	vendorToken("pulumi-api-token", "Pulumi access token", []string{"pul-"}, `pul-[a-f0-9]{40}`),
	vendorToken("readme-api-token", "ReadMe API token", []string{"rdme_"}, `rdme_[a-z0-9]{70}`),
	vendorToken("rubygems-api-token", "RubyGems API key", []string{"rubygems_"}, `rubygems_[a-f0-9]{48}`),
	vendorToken("scalingo-api-token", "Scalingo API token", []string{"tk-us-"}, `tk-us-[A-Za-z0-9_-]{48}`),
	vendorToken("sendinblue-api-token", "Brevo (Sendinblue) API key", []string{"xkeysib-"}, `xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`),
	vendorToken("sentry-token", "Sentry user or organization token", []string{"sntryu_", "sntrys_"},
		`sntryu_[a-f0-9]{64}|sntrys_eyJpYXQiO[`+b64+`=_]{50,}`),
	vendorToken("settlemint-token", "SettleMint access token", []string{"sm_aat_", "sm_pat_", "sm_sat_"}, `sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}`),
	vendorToken("shippo-api-token", "Shippo live API token", []string{"shippo_live_"}, `shippo_live_[a-fA-F0-9]{40}`),
	vendorToken("shopify-token", "Shopify access token or shared secret", []string{"shpat_", "shpca_", "shppa_", "shpss_"},
		`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`),
	vendorToken("sourcegraph-access-token", "Sourcegraph access token", []string{"sgp_"},
		`sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}`),
	vendorToken("square-access-token", "Square access token or secret", []string{"eaaa", "sq0atp-", "sq0csp-"},
		`(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_-]{22,60}`),
	vendorToken("typeform-api-token", "Typeform API token", []string{"tfp_"}, `tfp_[A-Za-z0-9_.=-]{59}`),
	vendorToken("vault-token", "HashiCorp Vault service or batch token", []string{"hvs.", "hvb."},
		`hvs\.[A-Za-z0-9_-]{90,120}|hvb\.[A-Za-z0-9_-]{138,300}`),
}

// vendorToken is a rule for a token that starts with one of keywords: the
// alternatives of pattern, anchored there and ending at a character that
// cannot be part of it. A group in pattern, if any, is the secret.
func vendorToken(id, desc string, keywords []string, pattern string) rule {
	r := rule{id: id, desc: desc, keywords: keywords, minEntropy: 3}
	if strings.Contains(pattern, "(") && !strings.Contains(pattern, "(?") {
		r.pattern, r.groups = pattern+tokenEnd, []int{1}
		return r
	}
	r.pattern, r.groups = `(`+pattern+`)`+tokenEnd, []int{1}
	return r
}

// discordToken is the shape of a Discord bot token: the bot's id in
// base64, a timestamp and an HMAC.
var discordToken = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b([MNO][A-Za-z0-9]{22,26}\.[` + urlSafe + `]{6}\.[` + urlSafe + `]{27,40})` + tokenEnd)
})

// Lengths of a Discord token's parts without a keyword near it: the id in
// base64 (an id of 18 or 19 digits), the timestamp, the HMAC.
const (
	discordIDMin, discordIDMax     = 24, 26
	discordTimestamp               = 6
	discordHMACMin, discordHMACMax = 27, 38
)

// findDiscordTokens finds Discord bot tokens: over the whole text with
// discordToken when one of the rule's keywords is in it, and anywhere
// from each pair of dots 7 bytes apart, the shape
// [MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}.
// Looking at dots only keeps the scan of texts without one cheap; the
// id's check (validDiscordToken: base64 of 17 to 20 digits) keeps other
// dotted tokens (JWTs, base64, version strings) out.
func findDiscordTokens(t *hitText, r *rule) []span {
	var out []span
	if t.anyHit(r) {
		out = findShape(discordToken)(t, r)
	}
	s := t.s
	for i := 0; ; {
		d := strings.IndexByte(s[i:], '.')
		if d < 0 {
			break
		}
		dot := i + d
		i = dot + 1
		end := dot + 1 + discordTimestamp
		if end >= len(s) || s[end] != '.' || !allURLSafe(s[dot+1:end]) {
			continue
		}
		start := dot
		for start > 0 && dot-start <= discordIDMax && isURLSafe(s[start-1]) {
			start--
		}
		if n := dot - start; n < discordIDMin || n > discordIDMax || (start > 0 && isURLSafe(s[start-1])) ||
			strings.IndexByte("MNO", s[start]) < 0 {
			continue
		}
		stop := end + 1
		for stop < len(s) && stop-end-1 <= discordHMACMax && isURLSafe(s[stop]) {
			stop++
		}
		if n := stop - end - 1; n < discordHMACMin || n > discordHMACMax || (stop < len(s) && isURLSafe(s[stop])) {
			continue
		}
		if sp := (span{start: start, end: stop}); r.acceptable(s[start:stop], "") && !overlaps(out, sp) {
			out = append(out, sp)
		}
		i = stop
	}
	return out
}

// isURLSafe reports whether c is a character of URL-safe base64.
func isURLSafe(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

func allURLSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isURLSafe(s[i]) {
			return false
		}
	}
	return true
}

// validDiscordToken accepts a token whose first part is a Discord id: 17
// to 20 digits in base64.
func validDiscordToken(s string) bool {
	id, _, _ := strings.Cut(s, ".")
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(id, "="))
	if err != nil || len(b) < 17 || len(b) > 20 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return hasUpperLowerDigit(s)
}

// findTelegramTokens matches r's pattern from the start of the bot id
// before each ":AA" (in the API's URLs, right after "/bot").
func findTelegramTokens(t *hitText, r *rule) []span {
	var out []span
	next := 0
	for _, h := range t.hitsOf(r) {
		start := h
		for start > 0 && h-start < 10 && t.s[start-1] >= '0' && t.s[start-1] <= '9' {
			start--
		}
		afterWord := start > 0 && isWordASCII(t.s[start-1]) && !strings.HasSuffix(string(t.lower[:start]), "/bot")
		if h-start < 8 || start < next || afterWord {
			continue
		}
		if sp, end, ok := r.matchAt(t.s, start); ok {
			out = append(out, sp)
			next = end
		}
	}
	return out
}

func hasUpperLowerDigit(s string) bool { return hasUpper(s) && hasLower(s) && hasDigit(s) }
