#!/usr/bin/env bash
# bench-native.sh - the native-import benchmark of BENCHMARKS.md ("Native history: import and
# index"): builds the workload once (internal/nativetree: the shared B_ and D_ fixtures copied
# 60 and 45 times with new UUIDs, ~700 MB; kept between runs), then, into a new store and cache,
# measures with /usr/bin/time: the first import alone (--no-index), the index build of that store
# (reindex), then, into another new store and cache, both in one pass (import-native as it is
# run), a re-import with nothing new, and a re-import after appending a turn to 10 Claude files
# (whose marker word must then be found). Prints wall, CPU and peak RSS of each, and events/s
# and MB/s. scripts/bench-process.sh measures the same operations (and search, append and
# --version) as processes, several rounds interleaved with agentsview, with p50 and p95.
#
# Usage: scripts/bench-native.sh [LAZULI_BINARY]   (default: builds ./out/lazuli-bench)
# Environment:
#   LAZULI_NATIVE_DIR   where the workload is kept (default ~/.cache/lazuli-native; it must
#                       be outside the repository)
#   LAZULI_BENCH_DIR    where the store and cache of the run go (default: a new temp folder)
#   LAZULI_BENCH_BUSY   N: keep N processes spinning on the CPU during the run (a busy machine;
#                       the issue's "busy" figures use 2 on a 2-core machine)
# Needs GNU time (/usr/bin/time). The machine's load average is printed with every step.
set -euo pipefail
cd "$(dirname "$0")/.."
home=${LAZULI_NATIVE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lazuli-native}
if [ ! -d "$home/.claude/projects" ]; then
  echo "bench-native: writing the workload to $home"
  go run ./internal/nativetree/cmd/nativework -home "$home"
fi
bin=${1:-}
if [ -z "$bin" ]; then
  mkdir -p out
  CGO_ENABLED=0 go build -tags nowindow -o out/lazuli-bench .   # the headless build, as bin/lazuli
  bin=out/lazuli-bench
fi
if [ -n "${LAZULI_BENCH_BUSY:-}" ]; then
  hogs=()
  for _ in $(seq "$LAZULI_BENCH_BUSY"); do
    sh -c 'while :; do :; done' & hogs+=($!)
  done
  trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
  echo "busy: $LAZULI_BENCH_BUSY spinning processes beside the run"
fi
work=${LAZULI_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/lazuli-native.XXXXXX")}
mkdir -p "$work/wt/.azureal" "$work/cache"
export LAZULI_CACHE_DIR=$work/cache
st=$work/wt/.azureal/sessions.azs
mb=$(du -sbL "$home/.claude/projects" "$home/.codex/sessions" | awk '{s+=$1} END {printf "%.1f", s/1e6}')
files=$(find "$home/.claude/projects" "$home/.codex/sessions" -name '*.jsonl' | wc -l)
echo "workload: $files files, $mb MB ($home); binary $bin; $(nproc) cores"
imp=("$bin" import-native --store "$st" --claude-dir "$home/.claude/projects" --codex-dir "$home/.codex/sessions")
step() { # step NAME CMD...: prints "NAME wall cpu rss" and leaves the command's last line in $last
  local name=$1; shift
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > "$work/out" 2> "$work/err" || { cat "$work/err"; exit 1; }
  read -r wall user sys rss < "$work/time"
  cpu=$(echo "$user + $sys" | bc)
  last=$(tail -1 "$work/out")
  printf '%-22s %7.2f s wall %7.2f s CPU %5d MiB peak  (load %s)\n' "$name" "$wall" "$cpu" $((rss / 1024)) "$load"
  eval "${name//[^a-z]/_}_wall=$wall"
}
step "import alone" "${imp[@]}" --no-index
events=$(echo "$last" | sed -n 's/.*with \([0-9]*\) events.*/\1/p')
step "index build" "$bin" reindex --store "$st"
echo "$last" | cut -c1-160
rm -rf "$work/wt" "$work/cache"
mkdir -p "$work/wt/.azureal" "$work/cache"
step "import and index" "${imp[@]}"
step "no-change re-import" "${imp[@]}"
go run ./internal/nativetree/cmd/nativework -home "$home" -append "b$$" > /dev/null
step "append re-import" "${imp[@]}"
echo "  $last"
step "search the marker" "$bin" search --store "$st" "zqmarkb$$x3"
echo "  $last"
echo "$import_alone_wall $index_build_wall $import_and_index_wall $events $mb" | awk '{t=$1+$2;
  printf "import:   %8.0f events/s %6.1f MB/s\nindex:    %8.0f events/s\nsum:      %7.2f s\none pass: %7.2f s, %8.0f events/s %6.1f MB/s\n", $4/$1, $5/$1, $4/$2, t, $3, $4/$3, $5/$3}'
"$bin" check --store "$st" | grep -E 'contents|full text|result'
