// Package search finds text in every session of one or more stores: user
// prompts (without injected context), assistant replies, plans, tool calls
// (the tool's name and every string of its input: commands, paths,
// patterns, the old and new strings of edits), tool results, hook output,
// slash commands and compaction summaries, each up to MaxEventText.
//
// The index of a store holds, for each sequence of four bytes (4-gram) of
// each event's lower-cased text (see grams.go), the events that hold it
// (see postings.go), in an SQLite file of its
// own file in Lazuli's cache folder (see Index), never in the store and
// never needed for correctness: Open, Update and Search rebuild what is
// missing, damaged or outdated, and Scan searches a store without one.
//
// How a query is read: its words, separated by white space, must all occur
// in an event's text, anywhere and in any order, ignoring case; each word
// is a plain substring ("pars" finds "Parser"). A query in double quotes,
// "go test", is one phrase that must occur as typed, spaces included.
// Nothing else has a meaning: operators (AND, OR, NOT, NEAR), quotes
// inside words, *, -, ^, : and parentheses are matched literally. A query
// needs a word of at least two characters; words of three or more are
// looked up in the index (by their 4-grams; a word of three bytes as the
// start of one), and a query whose words are all shorter is checked
// against the newest ShortQueryEvents events only.
//
// Hits come newest first: in the order their events were stored (which is
// AZUREAL's order of activity), a compaction summary where it sits after
// the events it covers.
//
// The API: Open returns a store's *Index; Update brings it up to date
// (incrementally, from the events' id high-water mark); Rebuild starts it
// over; Search queries it; Stores searches several stores together; Scan
// searches a store without an index. All are safe for concurrent use;
// Update and Search may run at the same time, in one process or several.
// The package never imports Fyne.
package search
