package export

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Issue 28: a Discord bot token with no "discord" near it, and a Hugging
// Face token with digits, are found; dotted and base64 look-alikes are not.
var (
	discordBare18 = base64.RawStdEncoding.EncodeToString([]byte("108647654321098765")) + "." + fake(301, urlChars, 6) + "." + fake(302, urlChars, 38)
	discordBare19 = base64.RawStdEncoding.EncodeToString([]byte("1186476543210987654")) + ".G" + fake(303, urlChars, 5) + "." + fake(304, urlChars, 27)
	hfDigits      = "hf" + "_" + "Q7" + fake(305, alphaNum, 30) + "a9"
)

// bareSecretCases are issue 28's cases: a secret the scan must find, or
// none ("" rule) in ordinary text the new shapes could be mistaken in.
func bareSecretCases() []secretCase {
	digitsID := base64.RawStdEncoding.EncodeToString([]byte("987654321098765432"))
	return []secretCase{
		{"discord bare in prose", "the bot logs in with " + discordBare18 + " on start", "discord-bot-token", discordBare18, ""},
		{"discord bare env", "BOT_AUTH=" + discordBare19, "discord-bot-token", discordBare19, ""},
		{"discord bare quoted", `bot.login("` + discordBare19 + `")`, "discord-bot-token", discordBare19, ""},
		{"discord bare at end", discordBare18, "discord-bot-token", discordBare18, ""},
		{"huggingface with digits", "huggingface-cli login --token " + hfDigits, "huggingface-token", hfDigits, ""},
		{"huggingface with digits in env", "HF_HOME=/data HF_AUTH=" + hfDigits + " python train.py", "huggingface-token", hfDigits, ""},
		{"huggingface with digits in a URL", "https://user:x@huggingface.co?t=" + hfDigits, "huggingface-token", hfDigits, ""},

		{"jwt-like", "signed aGVsbG8gd29ybGQgdGhpcyBpcw.ZXhhbXA.bGUgdGV4dCBmb3IgYSBqd3QtbGlrZSBzdHJpbmc ok", "", "", "discord-bot-token"},
		{"jwt-like with a 6-byte middle", "signed aGVsbG8gd29ybGQgdGhpcyBp.ZXhhbX." + fake(306, urlChars, 30) + " ok", "", "", "discord-bot-token"},
		{"discord shape not an id", "cached Mabcdefghijklmnopqrstuvwx.abcdef." + fake(307, urlChars, 30) + " here", "", "", "discord-bot-token"},
		{"discord id too short", "value " + base64.RawStdEncoding.EncodeToString([]byte("1234567890123456")) + "." + fake(308, urlChars, 6) + "." + fake(309, urlChars, 30), "", "", "discord-bot-token"},
		{"discord hmac too long", "value " + digitsID + "." + fake(310, urlChars, 6) + "." + fake(311, urlChars, 45), "", "", "discord-bot-token"},
		{"discord middle not 6", "value " + digitsID + "." + fake(312, urlChars, 7) + "." + fake(313, urlChars, 30), "", "", "discord-bot-token"},
		{"discord inside a longer run", "x" + "A" + discordBare18, "", "", "discord-bot-token"},
		{"base64 blob", "data: " + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("1234567890", 12))), "", "", "discord-bot-token"},
		{"dotted names", "os.path.join(a.b) v1.22.3 www.example.co.uk MTIzNDU2Nzg5MDEyMzQ1Njc4.abcdef.ghij", "", "", "discord-bot-token"},
		{"sentence dots", "Done. Tests pass. Fixed. Merged.", "", "", "discord-bot-token"},
		{"huggingface lower and digits", "cache hf_" + fake(314, lowerDig, 34) + " path", "", "", "huggingface-token"},
		{"huggingface only digits", "id hf_" + fake(315, "0123456789", 34), "", "", "huggingface-token"},
		{"huggingface identifier", "from huggingface_hub import hf_hub_download, snapshot_download", "", "", "huggingface-token"},
		{"huggingface too long", "hf_" + fake(316, alphaNum, 40), "", "", "huggingface-token"},
	}
}

func TestScanBareDiscordAndHuggingFace(t *testing.T) {
	for _, tc := range bareSecretCases() {
		t.Run(tc.name, func(t *testing.T) {
			var ts textScanner
			var got []string
			for _, sp := range ts.scan(tc.text) {
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

// TestRedactBareDiscordAndHuggingFace: the export's Scan and Redact (which
// a team push runs too) report and replace both shapes in a session.
func TestRedactBareDiscordAndHuggingFace(t *testing.T) {
	evs := []codec.Event{
		codec.UserMessage("start the bot with " + discordBare19),
		codec.AssistantText("Logged in to the Hub as " + hfDigits + "."),
	}
	stored := make([]store.StoredEvent, len(evs))
	for i, e := range evs {
		stored[i] = store.StoredEvent{ID: int64(i + 1), Seq: int64(i + 1), Kind: e.Kind, Event: e}
	}
	src := NewSource(store.Session{ID: 1, Name: "bot", Worktree: "main", Created: "2026-05-02 09:00:00"}, stored, nil)
	rep := Scan(src)
	var rules []string
	for _, f := range rep.Findings {
		rules = append(rules, f.Rule)
	}
	if strings.Join(rules, ",") != "discord-bot-token,huggingface-token" {
		t.Fatalf("Scan found %q, want [discord-bot-token huggingface-token]", rules)
	}
	out := Redact(src, rep)
	got := out.Events[0].Event.Content + " | " + out.Events[1].Event.Text
	want := "start the bot with [REDACTED:discord-bot-token] | Logged in to the Hub as [REDACTED:huggingface-token]."
	if got != want {
		t.Fatalf("Redact = %q, want %q", got, want)
	}
}
