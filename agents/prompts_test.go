package agents

import (
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// promptEvents are three turns of a conversation.
var promptEvents = []codec.Event{
	codec.UserMessage("question 1"), codec.AssistantText("answer 1"),
	codec.UserMessage("question 2"), codec.AssistantText("answer 2"),
	codec.UserMessage("question 3"), codec.AssistantText("answer 3"),
}

func TestBuildCompactionPrompt(t *testing.T) {
	prev := "Earlier summary."
	tests := []struct {
		name    string
		summary *string
		events  []codec.Event
	}{
		{"events only", nil, promptEvents[:4]},
		{"previous summary and events", &prev, promptEvents},
		{"empty", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := BuildCompactionPrompt(tc.summary, tc.events)
			transcript := codec.BuildTranscript(codec.ContextPayload{Summary: tc.summary, Events: tc.events})
			block := "\n\n<transcript>\n" + transcript + "\n</transcript>\n\n"
			intro, request, ok := strings.Cut(got, block)
			if !ok {
				t.Fatalf("BuildCompactionPrompt(%v) = %q, want it to contain %q", tc.summary, got, block)
			}
			if intro == "" || strings.Contains(intro, "\n") {
				t.Errorf("BuildCompactionPrompt intro = %q, want one paragraph", intro)
			}
			for _, w := range []string{"summar", "context", "verbatim", "replace"} {
				if !strings.Contains(strings.ReplaceAll(intro, "word for word", "verbatim"), w) {
					t.Errorf("BuildCompactionPrompt intro = %q, want it to mention %q", intro, w)
				}
			}
			for _, w := range []string{"2,000", "4,000", "decisions", "reasons", "created, modified or deleted",
				"path", "technical context", "end of the transcript", "unresolved issues", "next steps",
				"third person", "past tense", "only the summary", "no preamble"} {
				if !strings.Contains(request, w) {
					t.Errorf("BuildCompactionPrompt request = %q, want it to mention %q", request, w)
				}
			}
			if strings.Contains(got, codec.ContextOpenTag) || strings.Contains(got, codec.ContextCloseTag) {
				t.Errorf("BuildCompactionPrompt = %q, must not contain a context tag", got)
			}
		})
	}
}

func TestAutoContinuePrompt(t *testing.T) {
	got := AutoContinuePrompt()
	sentence, ok := strings.CutPrefix(got, codec.AutoContinueOpenTag+"\n")
	sentence, ok2 := strings.CutSuffix(sentence, "\n"+codec.AutoContinueCloseTag)
	if !ok || !ok2 || sentence == "" || strings.ContainsAny(sentence, "\n<>") {
		t.Fatalf("AutoContinuePrompt() = %q, want open tag, one sentence, close tag", got)
	}
	if !codec.IsInternalAutoContinue(got) {
		t.Errorf("IsInternalAutoContinue(%q) = false, want true", got)
	}
	summary := "S"
	wrapped := codec.BuildContextPrompt(&codec.ContextPayload{Summary: &summary, Events: promptEvents[:2]}, got)
	for _, in := range []string{got, wrapped} {
		if s, ok := codec.SanitizeUserMessage(in); ok {
			t.Errorf("SanitizeUserMessage(%q) = %q, true, want it dropped", in, s)
		}
	}
	out := store.FilterInjectedEvents([]codec.Event{codec.UserMessage(wrapped), codec.AssistantText("resumed")})
	if len(out) != 1 || out[0].Kind != codec.KindAssistantText {
		t.Errorf("FilterInjectedEvents(wrapped auto-continue, assistant) = %+v, want only the assistant text", out)
	}
}
