package store

// Lazuli's own tables: what AZUREAL's schema has no place for. AZUREAL's
// schema script, migration and queries never name them, and its delete
// leaves nothing in them that Lazuli trips over (each keeps the created
// time of its session, or goes with it by ON DELETE CASCADE); each is
// listed in docs/compatibility.md with its test.

// FlagsTable is the table of pinned and archived marks.
const FlagsTable = "lazuli_session_flags"

// ForkTable is the table that links forks to their parents.
const ForkTable = "lazuli_forks"

// FullTextTable is the table of full tool output and Write content.
const FullTextTable = "lazuli_full_text"

// NativeTable is the table that records imported native transcripts.
const NativeTable = "lazuli_native_imports"

// PermissionsTable is the table of sessions' permission modes and rules.
const PermissionsTable = "lazuli_permissions"

// RunFailureTable is the table of agent runs' failure reasons.
const RunFailureTable = "lazuli_run_failures"

// SubagentTable is the table that links sub-agent sessions to their parent.
const SubagentTable = "lazuli_subagents"

// ThinkingTable is the table that keeps the agents' thinking.
const ThinkingTable = "lazuli_thinking"

// UsageTable is the table that keeps token usage per turn.
const UsageTable = "lazuli_usage"
