package genstore

// Needle is a string planted in a generated store so that searches have
// selective hits besides the common words. None of them occurs in the
// generator's vocabulary.
type Needle struct {
	Text string
	// Rate is the chance that a prompt, reply or tool output carries the
	// needle. A needle with rate 0 is planted exactly once, in the first
	// prompt of one session.
	Rate float64
}

// Needles are the strings every generated store holds. Stats.Needles
// counts the events each one ends up in.
var Needles = []Needle{
	{Text: "ERR_QUOTA_7731"},
	{Text: "zephyrine-cascade"},
	{Text: "flamingoDispatcher"},
	{Text: "0x5eedcafe"},
	{Text: "TICKET-48213"},
	{Text: "heisenbug", Rate: 1.0 / 2_000},
	{Text: "kaleidoscope", Rate: 1.0 / 5_000},
	{Text: "ENOSPC", Rate: 1.0 / 1_000},
	{Text: "deadlock detected", Rate: 1.0 / 3_000},
	{Text: "segfault", Rate: 1.0 / 800},
	{Text: "quokka", Rate: 1.0 / 20_000},
	{Text: "CVE-2026-31337", Rate: 1.0 / 50_000},
}

// needleRate is the chance that a text gets any needle: the sum of rates.
var needleRate = func() float64 {
	sum := 0.0
	for _, n := range Needles {
		sum += n.Rate
	}
	return sum
}()

// NeedleCount is how many stored events hold a needle, after AZUREAL's
// ingestion-time compaction has shortened tool results.
type NeedleCount struct {
	Events   int // events of any kind
	Messages int // UserMessage and AssistantText events only
}
