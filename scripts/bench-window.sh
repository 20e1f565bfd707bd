#!/usr/bin/env bash
# bench-window.sh - the window's felt latency (BENCHMARKS.md, "Issue 31"): runs the
# real window (GLFW under a private Xvfb, Mesa software GL) with LAZULI_TRACE=1, drives
# it with xdotool (clicks on the sidebar, Ctrl+K typing and Enter, Ctrl+F and Enter,
# Ctrl+Home/End, a resize 1600 -> 800 px) and times each action from its input event
# to the first frame painted after the window shows its result (internal/windowbench).
# Start is timed from the exec to the first frame with the sidebar filled.
#
# Usage: scripts/bench-window.sh [--json] [--workload scale|native|fixtures] [--store P]
#                                [--rounds N] [--per-start N] [--queries a,b] [-v]
#   --workload scale     the 1 GB store of bench-scale.sh (2,000 sessions, a 50,000-event
#                        session; generated once, ~2 min) - the default
#   --workload native    a store imported from the native workload
#                        (../shared/benchmarks/native-workload.md; LAZULI_NATIVE_DIR,
#                        default /work/bench/native), made once
#   --workload fixtures  a store of ../shared/fixtures/transcripts, made once
#   --store P            any other store (only read: a copy is measured)
#   --json               print one object keyed by action: {"start": {"p50_ms": .., "p95_ms": .., "n": ..}, ...}
#   --rounds N           starts of the window (default 5); --per-start N: repetitions
#                        of each other action in one start (default 4)
# Environment:
#   LAZULI_BENCH_BUSY    N: keep N processes spinning on the CPU during the run
#   LAZULI_WINDOW_BENCH_DIR  where copies and indexes are kept (default ~/.cache/lazuli-windowbench)
# The load average (before and after) and the CPU model go to standard error.
# Needs Xvfb, xdotool and ImageMagick (scripts/install-deps.sh --gui).
set -euo pipefail
cd "$(dirname "$0")/.."

json=() workload=scale store="" rounds=5 per=4 queries="" verbose=()
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json=(-json); shift ;;
    --workload) workload=${2:?}; shift 2 ;;
    --store) store=${2:?}; workload=store; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --per-start) per=${2:?}; shift 2 ;;
    --queries) queries=${2:?}; shift 2 ;;
    -v) verbose=(-v); shift ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "bench-window: unknown option: $1" >&2; exit 2 ;;
  esac
done

make -s build >&2
dir=${LAZULI_WINDOW_BENCH_DIR:-$HOME/.cache/lazuli-windowbench}
mkdir -p "$dir" out
case "$workload" in
  scale)
    store=$(scripts/bench-scale.sh -generate-only | tail -1)
    : "${queries:=heisenbug,kaleidoscope,segfault,quokka}" ;;
  native)
    nd=${LAZULI_NATIVE_DIR:-/work/bench/native}
    store=$dir/native-source/.azureal/sessions.azs
    if [ ! -f "$store" ]; then
      [ -d "$nd/.claude" ] || { echo "bench-window: no native workload at $nd (see ../shared/benchmarks/native-workload.md)" >&2; exit 2; }
      mkdir -p "$dir/native-source"
      LAZULI_CACHE_DIR=$dir/native-source-cache bin/lazuli import-native --store "$store" \
        --claude-dir "$nd/.claude" --codex-dir "$nd/.codex" --include-own --no-index >&2
    fi
    : "${queries:=useEffect,migration,timeout,refactor}" ;;
  fixtures)
    fx=../shared/fixtures/transcripts
    [ -d "$fx" ] || { echo "bench-window: $fx is missing" >&2; exit 2; }
    store=$dir/fixtures-source/.azureal/sessions.azs
    if [ ! -f "$store" ]; then
      mkdir -p "$dir/fixtures-source"
      for f in "$fx"/*; do bin/lazuli import --store "$store" "$f" >/dev/null 2>&1 || true; done
    fi
    : "${queries:=error,test,function}" ;;
  store) : "${queries:=error,test,function}" ;;
  *) echo "bench-window: unknown workload: $workload" >&2; exit 2 ;;
esac
[ -f "$store" ] || { echo "bench-window: no store at $store" >&2; exit 2; }

hogs=()
trap 'for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
if [ -n "${LAZULI_BENCH_BUSY:-}" ]; then
  for _ in $(seq "$LAZULI_BENCH_BUSY"); do
    sh -c 'while :; do :; done' & hogs+=($!)
  done
fi
go build -o out/windowbench ./internal/windowbench/cmd/windowbench
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo "bench-window: $workload ($store), commit $(git rev-parse --short HEAD), $(nproc) x $cpu, busy ${LAZULI_BENCH_BUSY:-0}" >&2
echo "bench-window: load before $(cut -d' ' -f1-3 /proc/loadavg)" >&2
out/windowbench -store "$store" -work "$dir/$workload-$(printf %s "$store" | sha256sum | cut -c1-8)" \
  -rounds "$rounds" -per-start "$per" -queries "$queries" -fail-shot out/bench-window-failed.png \
  "${json[@]}" "${verbose[@]}"
echo "bench-window: load after $(cut -d' ' -f1-3 /proc/loadavg)" >&2
