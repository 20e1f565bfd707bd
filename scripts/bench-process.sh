#!/usr/bin/env bash
# bench-process.sh - Lazuli measured as a user meets it (issue 30), interleaved with agentsview
# where it has the same operation: each command run as a process and timed from exec to exit by
# internal/proctime (0.1 ms resolution; CPU and peak RSS from the child's rusage), N rounds of
# A B A B, the load average and the CPU model beside every row. On a copy of the native workload
# (the one of bench-native.sh; built if missing, never written: the append rows append to the
# copy), it measures:
#   one pass import + index   lazuli import-native into a new store and cache, against
#                             agentsview's first sync into a new data dir and HOME: exec to its
#                             "listening at" line (it syncs before it listens), then interrupted
#   no-change re-import       import-native again, against a second start on the same data dir
#   append re-import          2 lines appended to 10 files before each round (nativework
#                             -append), then both re-import: each reads the same 20 new lines
#   search WORD               lazuli search, for words in 1 … every session and in none, against
#                             an HTTP GET of agentsview's search API on its warm server
#   search error, all hits    lazuli search error --json --limit 100000 (agentsview: no one call)
#   sessions found for error  distinct sessions of that output, against every page of
#                             agentsview's search API for error
#   --version                 lazuli --version against agentsview version
# It writes a JSON report and its Markdown tables (the issue's table, then every command in
# full) to out/, and prints the tables. bench-native.sh stays the Lazuli-only breakdown of
# the import (import alone, index build) with /usr/bin/time.
#
# Usage: scripts/bench-process.sh [--quick] [LAZULI_BINARY]   (default: builds out/lazuli-bench,
#        the headless build, as make build builds bin/lazuli)
#   --quick: fewer rounds (1 cold, 3 re-import and append, 5 search, 10 version)
# Environment:
#   AGENTSVIEW          agentsview binary (built with -tags fts5); unset: Lazuli's rows only
#   AGENTSVIEW_COMMIT   its commit (default: what `agentsview version` says, or the git
#                       checkout its binary sits in)
#   LAZULI_COMMIT       Lazuli's commit (default: what `lazuli --version` says)
#   LAZULI_NATIVE_DIR   the workload (default ~/.cache/lazuli-native, as bench-native.sh)
#   LAZULI_BENCH_DIR    where the copy, stores and data dirs go (default: a new temp folder);
#                       removed at the end unless LAZULI_BENCH_KEEP=1
#   LAZULI_BENCH_BUSY   N: keep N processes spinning on the CPU during the run
#   LAZULI_BENCH_QUICK  1: as --quick
#   LAZULI_BENCH_OUT    the JSON report (default out/bench-process-DATE.json; .md beside it)
#   LAZULI_BENCH_PORT   agentsview's port (default 20000 + PID % 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${LAZULI_BENCH_QUICK:-}
if [ "${1:-}" = --quick ]; then quick=1; shift; fi
cold=3 again=10 searches=20 versions=50 alls=5
if [ -n "$quick" ]; then cold=1 again=3 searches=5 versions=10 alls=2; fi

home=${LAZULI_NATIVE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lazuli-native}
if [ ! -d "$home/.claude/projects" ]; then
  echo "bench-process: writing the workload to $home"
  go run ./internal/nativetree/cmd/nativework -home "$home"
fi
mkdir -p out
bin=${1:-}
if [ -z "$bin" ]; then
  # As make build makes bin/lazuli: the headless build, what a user runs commands with.
  CGO_ENABLED=0 go build -tags nowindow -ldflags "-X main.commit=$(git rev-parse --short=12 HEAD)" -o out/lazuli-bench .
  bin=out/lazuli-bench
fi
bin=$(realpath "$bin")
av=${AGENTSVIEW:-}
if [ -n "$av" ]; then av=$(realpath "$av"); fi

work=${LAZULI_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/lazuli-process.XXXXXX")}
mkdir -p "$work"
work=$(realpath "$work")
avpid=""
hogs=()
cleanup() {
  if [ -n "$avpid" ]; then kill "$avpid" 2>/dev/null || true; wait "$avpid" 2>/dev/null || true; fi
  if [ ${#hogs[@]} -gt 0 ]; then kill "${hogs[@]}" 2>/dev/null || true; fi
  if [ "${LAZULI_BENCH_KEEP:-}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
go build -o "$work/proctime" ./internal/proctime/cmd/proctime
go build -o "$work/nativework" ./internal/nativetree/cmd/nativework
pt=$work/proctime

echo "bench-process: copying the workload to $work/native (the append rows append to the copy)"
cp -a --reflink=auto "$home" "$work/native"
wl=$work/native
mb=$(du -sbL "$wl/.claude/projects" "$wl/.codex/sessions" | awk '{s+=$1} END {printf "%.0f", s/1e6}')
files=$(find "$wl/.claude/projects" "$wl/.codex/sessions" -name '*.jsonl' | wc -l)

if [ -n "${LAZULI_BENCH_BUSY:-}" ]; then
  for _ in $(seq "$LAZULI_BENCH_BUSY"); do
    sh -c 'while :; do :; done' & hogs+=($!)
  done
  echo "busy: $LAZULI_BENCH_BUSY spinning processes beside the run"
fi

# The commit of each binary: the environment, else what it says of itself.
lzc=${LAZULI_COMMIT:-$("$bin" --version 2>/dev/null | sed -n 's/.*commit \([0-9a-f]\{7,\}\).*/\1/p')}
avc=${AGENTSVIEW_COMMIT:-}
if [ -n "$av" ] && [ -z "$avc" ]; then
  avc=$("$av" version 2>/dev/null | sed -n 's/.*commit \([0-9a-f]\{7,\}\).*/\1/p')
  if [ -z "$avc" ]; then avc=$(git -C "$(dirname "$av")" rev-parse --short HEAD 2>/dev/null || true); fi
fi
stamp=$(date -u +%Y%m%dT%H%M%SZ)
json=${LAZULI_BENCH_OUT:-out/bench-process-$stamp.json}
md=${json%.json}.md
commits=(-commit "Lazuli=${lzc:-unknown}")
if [ -n "$av" ]; then commits+=(-commit "agentsview=${avc:-unknown}"); fi
"$pt" init -o "$json" -busy "${LAZULI_BENCH_BUSY:-0}" "${commits[@]}" -workload "native history, $files files, $mb MB"
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Lazuli $bin (${lzc:-commit unknown})${av:+; agentsview $av (${avc:-commit unknown})}; $files files, $mb MB"

# Lazuli: a store and cache of its own; agentsview: a data dir and HOME of its own.
export LAZULI_CACHE_DIR=$work/lz/cache
st=$work/lz/wt/.azureal/sessions.azs
imp=("$bin" import-native --store "$st" --claude-dir "$wl/.claude/projects" --codex-dir "$wl/.codex/sessions")
port=${LAZULI_BENCH_PORT:-$((20000 + $$ % 10000))}
avenv=(+env="HOME=$work/av/home" +env="AGENT_VIEWER_DATA_DIR=$work/av/data"
  +env="CLAUDE_PROJECTS_DIR=$wl/.claude/projects" +env="CODEX_SESSIONS_DIR=$wl/.codex/sessions")
avserve=(+ready='listening at' "${avenv[@]}" "$av" serve -no-browser -port "$port")
# pair ROW LAZULI_SPEC... [-- AGENTSVIEW_SPEC...]: the specs of one row, agentsview's only when
# it is given.
pair() {
  local row=$1; shift
  spec=("Lazuli:$row")
  while [ $# -gt 0 ] && [ "$1" != -- ]; do spec+=("$1"); shift; done
  if [ $# -gt 0 ] && [ -n "$av" ]; then shift; spec+=(:: "agentsview:$row" "$@"); fi
}
q() { printf '%q' "$1"; }

echo "== one pass import + index, $cold rounds (fresh store and cache; fresh data dir and HOME)"
pair "one pass import + index" +stdout="$work/import.out" "${imp[@]}" -- "${avserve[@]}"
"$pt" run -o "$json" -n "$cold" -warmup 0 -detail \
  -before "rm -rf $(q "$work/lz") $(q "$work/av") && mkdir -p $(q "$work/lz/wt/.azureal") $(q "$work/lz/cache") $(q "$work/av/data") $(q "$work/av/home")" \
  "${spec[@]}"
echo "  Lazuli: $(tail -1 "$work/import.out" | cut -c1-160)"
if [ -n "$av" ]; then
  echo "  agentsview: $(grep -o 'Sync complete[^"]*' "$json" | tail -1); at ready: $(grep -o '"memory_at_ready": "[^"]*' "$json" | tail -1 | cut -d'"' -f4)"
  if command -v sqlite3 > /dev/null; then
    echo "  agentsview's data dir: $(sqlite3 "file:$work/av/data/sessions.db?mode=ro" 'select count(*) from sessions') sessions"
  fi
fi

echo "== no-change re-import, $again rounds"
pair "no-change re-import" "${imp[@]}" -- "${avserve[@]}"
"$pt" run -o "$json" -n "$again" -warmup 1 "${spec[@]}"

echo "== append 2 lines to 10 files, re-import, $again rounds (each round appends anew, both read it)"
echo 0 > "$work/round"
pair "append 2 lines to 10 files, re-import" "${imp[@]}" -- "${avserve[@]}"
"$pt" run -o "$json" -n "$again" -warmup 0 \
  -before "n=\$((\$(cat $(q "$work/round")) + 1)); echo \$n > $(q "$work/round"); $(q "$work/nativework") -home $(q "$wl") -append a\$n" \
  "${spec[@]}"
marker=zqmarka${again}x0

url=
if [ -n "$av" ]; then
  env HOME="$work/av/home" AGENT_VIEWER_DATA_DIR="$work/av/data" CLAUDE_PROJECTS_DIR="$wl/.claude/projects" \
    CODEX_SESSIONS_DIR="$wl/.codex/sessions" "$av" serve -no-browser -port "$port" > "$work/av.log" 2>&1 &
  avpid=$!
  for _ in $(seq 600); do
    url=$(grep -o 'listening at http://[^ ]*' "$work/av.log" | cut -d' ' -f3 || true)
    if [ -n "$url" ] || ! kill -0 "$avpid" 2>/dev/null; then break; fi
    sleep 0.2
  done
  if [ -z "$url" ]; then echo "bench-process: agentsview did not start:"; cat "$work/av.log"; exit 1; fi
  echo "agentsview serving at $url (warm, for the search rows)"
fi

echo "== search, $searches rounds (Lazuli: a process; agentsview: a GET of its search API)"
spec=()
for w in "$marker" handleSubmit TypeError error the zqnohitword; do
  n=$(grep -rlwF -- "$w" "$wl/.claude/projects" "$wl/.codex/sessions" | wc -l || true)
  row="search \`$w\` (in $n files)"
  if [ "$n" = 1 ]; then row="search \`$w\` (in 1 file)"; fi
  if [ "$w" = zqnohitword ]; then row="search a word in no session"; fi
  [ ${#spec[@]} -eq 0 ] || spec+=(::)
  spec+=("Lazuli:$row" "$bin" search --store "$st" "$w")
  if [ -n "$av" ]; then spec+=(:: "agentsview:$row" "$url/api/v1/search?q=$w"); fi
done
"$pt" run -o "$json" -n "$searches" -warmup 1 "${spec[@]}"

echo "== every hit for error, $alls rounds, and the sessions each program finds"
"$pt" run -o "$json" -n "$alls" -warmup 1 "Lazuli:search error --json --limit 100000" \
  +stdout="$work/error.json" "$bin" search --store "$st" --json --limit 100000 error
"$pt" count -o "$json" "Lazuli:sessions found for \`error\`" "$work/error.json"
if [ -n "$av" ]; then
  "$pt" count -o "$json" "agentsview:sessions found for \`error\`" "$url/api/v1/search?q=error"
  kill "$avpid"; wait "$avpid" 2>/dev/null || true; avpid=
fi

echo "== --version, $versions rounds"
pair "--version (agentsview: version)" "$bin" --version -- "$av" version
"$pt" run -o "$json" -n "$versions" -warmup 2 "${spec[@]}"

"$pt" table "$json" > "$md"
echo
cat "$md"
echo "report: $json, $md"
