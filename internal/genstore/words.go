package genstore

import "strings"

// proseWords is the vocabulary of prompts and replies, roughly in order of
// frequency: the Zipf tables below make the first words the most common, as
// in real text.
var proseWords = strings.Fields(`
the to a of and is in it that this for we be on not with as at are so can
test it's was but if from have i or you which when now by should then there
an will one file all function error also just need do would what only first
because into let's make sure check value more here same use each new two any
run code still after like these call other case where before does they has
its our up no out return about line could since than way change why instead
fix state time both current without again back next last session store event
update read write add remove build type data path list index query table row
field method struct interface loop buffer cache order count size length empty
default version fails passes works breaks happens means expected actual wrong
right missing found looks seems already every few many most some through
while until between against inside outside above below behind around once
simple small large long short old real whole part rest end start middle side
look see think know want try keep find give take show tell put set get open
close load save parse decode encode handle return retry wait stop begin finish
problem reason result output input message warning issue bug patch commit diff
branch merge rebase review comment note idea plan step approach option choice
better worse easier harder faster slower safer cleaner simpler clearer
module package import export class object array string number boolean null
config setting flag argument parameter variable constant pointer reference
thread goroutine channel mutex lock race condition deadlock timeout deadline
request response client server handler route endpoint header body status
database schema migration column record transaction connection pool driver
stream reader writer encoder decoder parser lexer token scanner tree node
memory allocation heap stack frame trace profile benchmark latency throughput
user account token permission role policy secret key certificate session
render layout widget window view component style theme font color icon
api cli sql http json yaml csv tmp log dir env
correctly properly actually probably likely exactly clearly quickly slowly
usually always never often sometimes rarely directly indirectly explicitly
implicitly separately together already finally originally previously
currently recently eventually immediately later earlier otherwise
however although therefore meanwhile furthermore nevertheless
important relevant obvious subtle tricky careful minor major critical
unused unexpected unknown invalid valid stale fresh dirty clean broken flaky
stable unstable slow fast hot cold warm idle busy full partial nested flat
noticed realized confirmed verified reproduced traced narrowed isolated
added removed renamed moved split merged extracted inlined replaced rewrote
refactored simplified cleaned updated bumped pinned reverted fixed broke
caught missed skipped dropped kept moved copied pasted wrapped unwrapped
logged printed reported returned raised thrown panicked recovered retried
`)

// techNouns are the parts of identifiers, package and file names.
var techNouns = strings.Fields(`
store session event index query cache buffer reader writer parser token
stream config client server handler router request response header payload
record entry segment chunk page block frame batch queue worker pool job task
schedule timer clock retry backoff limit quota metric counter gauge span trace
logger sink source target snapshot manifest catalog registry provider plugin
adapter bridge gateway proxy filter mapper reducer codec encoder decoder
scanner lexer node tree graph edge vertex path route table column row schema
migration cursor iterator window view model widget layout theme style render
canvas sidebar transcript prompt meter badge dialog menu toolbar status
account user role policy permission secret credential token certificate
compaction summary context transcript agent runner backend model tool result
diff patch hunk line offset range span cell grid matrix vector tensor shard
replica leader follower election lease watch notify signal channel mutex lock
`)

// techVerbs start function names.
var techVerbs = strings.Fields(`
get set load save open close read write parse format build make new create
delete remove update apply compute count find lookup resolve validate check
verify ensure handle process flush sync merge split join encode decode
compress decompress marshal unmarshal render draw layout refresh reset
start stop run wait cancel retry schedule dispatch emit publish subscribe
register collect gather scan walk visit filter map reduce sort group index
normalize sanitize escape unescape trim truncate wrap unwrap convert
`)

// worktrees are the branches sessions belong to, most common first.
var worktrees = []string{
	"main", "feature/search-index", "fix/compaction-race", "refactor/store-codec",
	"feat/export-html", "feat/codex-resume", "chore/deps-bump", "experiment/mmap-reader",
	"fix/unicode-paths", "feat/dark-theme", "perf/list-cache", "docs/architecture",
}

// projects name the repositories sessions work in.
var projects = strings.Fields(`lazuli orbit tessera quill harbor lantern
	meridian cobalt juniper atlas beacon cinder drift ember fjord`)

// orgs own the projects in import paths and URLs.
var orgs = strings.Fields(`acme northwind initech globex umbrella hooli
	vandelay stark wayne tyrell`)

// people appear in git logs, reviews and co-author lines.
var people = strings.Fields(`alice bob carol dave erin frank grace heidi
	ivan judy mallory niaj olivia peggy rupert sybil trent victor walter`)

// nameTemplates title named sessions; %s is replaced by generated words.
var nameTemplates = []string{
	"Fix flaky %s test", "Add %s support", "Refactor %s", "Investigate slow %s",
	"Port %s to the new API", "Review %s changes", "Debug %s crash", "%s cleanup",
	"Speed up %s", "Document %s", "Migrate %s", "Remove dead %s code",
	"Handle empty %s", "Split %s into packages", "[RCR] %s",
}

// models are the Claude and Codex models sessions run with.
var (
	claudeModels = []string{"claude-opus-4-5", "claude-sonnet-4-5", "opus", "sonnet", "haiku"}
	codexModels  = []string{"gpt-5.5", "gpt-5-codex", "gpt-5.5-mini", "o4-mini"}
)

// hookNames are Claude Code hook events.
var hookNames = []string{
	"SessionStart:startup", "UserPromptSubmit", "PreToolUse:Bash", "PostToolUse:Edit",
	"PostToolUse:Write", "Stop", "SessionStart:resume", "PreCompact",
}

// slashCommands are the Command events.
var slashCommands = []string{"/compact", "/clear", "/review", "/init", "/cost", "/model", "/memory", "/pr-comments"}

// subagents are Task tool subagent types.
var subagents = []string{"general-purpose", "Explore", "code-reviewer", "test-runner", "Plan"}

// webHosts are the sites WebFetch and WebSearch visit.
var webHosts = []string{
	"pkg.go.dev", "go.dev/doc", "developer.mozilla.org/en-US/docs", "docs.python.org/3/library",
	"doc.rust-lang.org/std", "sqlite.org", "github.com", "stackoverflow.com/questions",
	"www.typescriptlang.org/docs", "docs.docker.com", "nodejs.org/api",
}
