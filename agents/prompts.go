package agents

import "github.com/lazuli-app/lazuli/codec"

// compactionIntro and compactionRequest frame the transcript sent to the
// compaction agent. They are Lazuli's own wording of AZUREAL's request
// (spec §7.3 step 4); only the transcript inside has to match AZUREAL.
const (
	compactionIntro = "The transcript below is the older part of a coding session between a user " +
		"and an AI coding agent. Summarize it so that the summary can be injected as context " +
		"into future prompts. The most recent exchanges are not included: they are kept word " +
		"for word elsewhere, and your summary will replace everything in this transcript."
	compactionRequest = "Write a summary of 2,000 to 4,000 characters that keeps:\n" +
		"- the key decisions and the reasons behind them\n" +
		"- every file that was created, modified or deleted, with its path\n" +
		"- important technical context (architecture, conventions, constraints)\n" +
		"- the state of the work at the end of the transcript\n" +
		"- unresolved issues and the next steps that were agreed\n\n" +
		"Write in the third person and the past tense, keeping what is needed to follow " +
		"the recent exchanges. Output only the summary itself, with no preamble."
)

// BuildCompactionPrompt returns the prompt for the background compaction
// agent (spec §7.3 step 4): an introduction, the transcript of the previous
// summary and events between <transcript> tags, and the summary request.
func BuildCompactionPrompt(previousSummary *string, events []codec.Event) string {
	t := codec.BuildTranscript(codec.ContextPayload{Summary: previousSummary, Events: events})
	return compactionIntro + "\n\n<transcript>\n" + t + "\n</transcript>\n\n" + compactionRequest
}

// autoContinueInstruction is the sentence inside the auto-continue block.
// It must not contain a context tag, or stripping would cut it.
const autoContinueInstruction = "Carry on with the work that was in progress, picking up from " +
	"the session context supplied above; this is not a new request, so keep the same objectives."

// AutoContinuePrompt returns the hidden prompt sent after a mid-turn
// compaction to resume the interrupted work (spec §7.5). It is
// context-injected like any prompt, and store.SanitizeUserMessage drops it, so it
// is never shown or stored.
func AutoContinuePrompt() string {
	return codec.AutoContinueOpenTag + "\n" + autoContinueInstruction + "\n" + codec.AutoContinueCloseTag
}
