package safelink

import "testing"

// classifyCases are written against the hostile spellings first: other
// schemes, case, prefixes a browser strips, scheme-relative links.
var classifyCases = []struct {
	name string
	raw  string
	want Kind
}{
	{"https", "https://example.com/a?b=c#d", Web},
	{"http", "http://example.com", Web},
	{"upper case https", "HTTPS://EXAMPLE.COM/", Web},
	{"mixed case http", "hTtP://example.com", Web},
	{"mailto", "mailto:someone@example.com", Web},
	{"mailto upper", "MAILTO:someone@example.com?subject=hi", Web},
	{"lazuli", "lazuli://open?path=%2Fp%2Fs.azs&session=3&event=12", Lazuli},
	{"lazuli upper", "LAZULI://open?session=3", Lazuli},

	{"empty", "", Text},
	{"javascript", "javascript:alert(1)", Text},
	{"javascript mixed case", "JaVaScRiPt:alert(1)", Text},
	{"javascript after control", "\x01javascript:alert(1)", Text},
	{"javascript after space", " javascript:alert(1)", Text},
	{"javascript with tab", "java\tscript:alert(1)", Text},
	{"javascript with newline", "java\nscript:alert(1)", Text},
	{"https after space", " https://example.com", Text},
	{"https with trailing newline", "https://example.com\n", Text},
	{"vbscript", "vbscript:msgbox(1)", Text},
	{"data", "data:text/html,<script>alert(1)</script>", Text},
	{"data base64", "data:text/html;base64,PHNjcmlwdD4=", Text},
	{"file", "file:///etc/passwd", Text},
	{"file upper", "FILE:///etc/passwd", Text},
	{"file host", "file://host/share", Text},
	{"ssh", "ssh://evil.example", Text},
	{"smb", "smb://evil.example/share", Text},
	{"ftp", "ftp://example.com/x", Text},
	{"custom scheme", "vscode://file/etc/passwd", Text},
	{"x-scheme-handler", "steam://run/1", Text},
	{"scheme relative", "//evil.example/x", Text},
	{"relative", "notes/readme.md", Text},
	{"absolute path", "/etc/passwd", Text},
	{"fragment", "#top", Text},
	{"no scheme colon", ":foo", Text},
	{"http without slashes", "http:example.com", Text},
	{"http one slash", "http:/example.com", Text},
	{"https no host", "https://", Text},
	{"https backslashes", "https:\\\\evil.example", Text},
	{"https backslash in host", "https://good.example\\@evil.example", Text},
	{"https user info", "https://github.com@evil.example/", Text},
	{"https with space", "https://exa mple.com", Text},
	{"https with quote", "https://example.com/\"onmouseover=x", Text},
	{"https with angle", "https://example.com/<script>", Text},
	{"https with bidi override", "https://example.com/\u202egnp.exe", Text},
	{"https with zero width space", "https://exa\u200bmple.com", Text},
	{"https with nbsp", "https://example.com/\u00a0x", Text},
	{"https with del", "https://example.com/\x7f", Text},
	{"https invalid utf8", "https://example.com/\xff", Text},
	{"mailto empty", "mailto:", Text},
	{"mailto slashes", "mailto://x", Text},
	{"javascript in mailto clothing", "mailtojavascript:alert(1)", Text},
	{"entity-like", "javascript&#58;alert(1)", Text},
	{"percent-encoded scheme", "javascript%3Aalert(1)", Text},
	{"unicode scheme lookalike", "httpѕ://example.com", Text},
}

func TestClassify(t *testing.T) {
	for _, tc := range classifyCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(tc.raw); got != tc.want {
				t.Errorf("Classify(%q) = %v, want %v", tc.raw, got, tc.want)
			}
			if got, want := Opens(tc.raw), tc.want == Web; got != want {
				t.Errorf("Opens(%q) = %v, want %v", tc.raw, got, want)
			}
		})
	}
}

func FuzzClassify(f *testing.F) {
	for _, tc := range classifyCases {
		f.Add(tc.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		k := Classify(raw)
		if k == Text {
			return
		}
		if !plain(raw) {
			t.Fatalf("Classify(%q) = %v for a URL with characters a browser strips", raw, k)
		}
	})
}
