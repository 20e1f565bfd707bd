// Package codec is AZUREAL's event model and its exact encoding, with no
// SQL: the DisplayEvent variants (Event, Kind and their constructors), the
// serde-exact JSON writer and reader (what AZUREAL's serde_json writes,
// byte for byte, and a fast decoder for it), the zstd frames events are
// stored in (Codec, refusing a frame that would decode past MaxEventSize
// before decoding it), compaction of events and their character length as
// AZUREAL counts it, and the context prompt a continued session is given
// (BuildContextPrompt, the sanitizer of injected context tags).
//
// store reads and writes .azs files with it; the agents' parsers build
// events with it. It imports none of Lazuli's packages.
package codec
