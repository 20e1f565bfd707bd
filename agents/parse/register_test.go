package parse

import (
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// testFormat is registered by this test file only: a format whose lines
// carry "testfmt", and which claims a parentUuid line (as Qwen Code's do)
// before the Claude transcript detection sees it.
const testFormat Format = "test-format"

type nopParser struct{ st Stats }

func (p *nopParser) Feed([]byte) []codec.Event { return nil }
func (p *nopParser) Finish() []codec.Event     { return nil }
func (p *nopParser) Stats() Stats              { return p.st }

func init() {
	RegisterFormat(FormatSpec{Format: testFormat,
		Detect: func(o Object) bool { return o.Has("testfmt") },
		New:    func(Options) Parser { return &nopParser{} }})
}

func TestRegisteredFormat(t *testing.T) {
	if f, err := LookupFormat("test-format"); err != nil || f != testFormat {
		t.Errorf("LookupFormat = %q, %v", f, err)
	}
	if _, err := LookupFormat("nope"); err == nil {
		t.Error("LookupFormat(nope) succeeded")
	}
	f, err := DetectFormat([][]byte{[]byte(`{"testfmt":1,"parentUuid":"a","sessionId":"s"}`)})
	if err != nil || f != testFormat {
		t.Errorf("DetectFormat = %q, %v; want the registered format before Claude's", f, err)
	}
	if f, _ := DetectFormat([][]byte{[]byte(`{"parentUuid":"a","sessionId":"s"}`)}); f != FormatClaudeTranscript {
		t.Errorf("a Claude line detects as %q", f)
	}
	if s, ok := Spec(testFormat); !ok || s.New(Options{}) == nil {
		t.Error("Spec does not return the registered format")
	}
	all := AllFormats()
	if len(all) != len(Formats)+1 || all[len(all)-1] != testFormat {
		t.Errorf("AllFormats = %v", all)
	}
}
