#!/usr/bin/env bash
# bench-scale.sh - the scale benchmark of BENCHMARKS.md ("Scale: a 1 GB store") in one
# run: generates the store once (internal/genstore; kept between runs), then measures
# on it, each beside its baseline: open and list the sessions (sqlite3 running
# AZUREAL's list query), the first rows of the biggest session (AZUREAL's load),
# search p50/p95 (AZUREAL's search), the index build, and the resident memory of a
# process with all of that open. Writes out/bench-scale.txt (and prints it).
#
# Usage: scripts/bench-scale.sh [-sessions N] [-events N] [-big N] [-seed N] [-generate-only]
#   defaults: 2000 sessions, 1,000,000 events, a 50,000-event session, seed 1 (~1 GB)
#   -generate-only  generate the store if missing, print its path, measure nothing
# Environment:
#   LAZULI_SCALE_DIR    where generated stores are kept (default ~/.cache/lazuli-scale);
#                       a store is named after its options and the source of the generator
#                       and the event codec, so changing any of them generates a new one
#   LAZULI_SCALE_STORE  measure this store instead (nothing is generated)
#   BENCH_COUNT         iterations of the quick benchmarks (default 5)
#   LAZULI_SCALE_CACHE  keep the search index here between runs (default: a new one, removed)
# Needs Go and sqlite3 (scripts/install-deps.sh --tools). The machine should be quiet:
# the load average is recorded before and after.
set -euo pipefail
cd "$(dirname "$0")/.."

sessions=2000 events=1000000 big=50000 seed=1 generate_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    -generate-only) generate_only=1; shift ;;
    -sessions|-events|-big|-seed)
      [ $# -ge 2 ] || { echo "bench-scale: $1 needs a value" >&2; exit 2; }
      declare "${1#-}=$2"; shift 2 ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "bench-scale: unknown option: $1" >&2; exit 2 ;;
  esac
done
count=${BENCH_COUNT:-5}

mkdir -p out
out=out/bench-scale.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

store=${LAZULI_SCALE_STORE:-}
if [ -z "$store" ]; then
  dir=${LAZULI_SCALE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lazuli-scale}
  mkdir -p "$dir"
  # the generator's source and the event codec's: either changes what is written
  gen=$( (find internal/genstore -maxdepth 1 -name '*.go' ! -name '*_test.go'; echo codec/codec.go) |
    sort | xargs cat | sha256sum | cut -c1-8)
  store="$dir/store-s$sessions-e$events-b$big-seed$seed-g$gen.azs"
  if [ ! -f "$store" ]; then
    echo "bench-scale: generating $store"
    go run ./internal/genstore/cmd/genstore -o "$store" -sessions "$sessions" -events "$events" \
      -big "$big" -seed "$seed" > "$store.txt.tmp"
    mv "$store.txt.tmp" "$store.txt"
  fi
fi
[ -f "$store" ] || { echo "bench-scale: no store at $store" >&2; exit 1; }
if [ "$generate_only" = 1 ]; then echo "$store"; exit 0; fi

echo "bench-scale: building the benchmark binary"
bin=out/bench-scale.test   # kept: pprof needs it to read the heap profiles
go test -c -o "$bin" ./internal/scale/

# One search index for IndexBuild, Search and Memory: a new one, unless LAZULI_SCALE_CACHE
# names a folder to keep it in between runs (IndexBuild then builds in a folder of its own).
export LAZULI_SCALE_CACHE="${LAZULI_SCALE_CACHE:-$work/cache}"
heap="out/bench-scale-heap"
rm -rf "$heap"; mkdir -p "$heap"

failed=0
bench() { # bench PATTERN ITERATIONS [ARGS...]: one benchmark run, appended to the report
  local pattern=$1 n=$2 status=0; shift 2
  echo "bench-scale: $pattern (${n}x)" >&2
  echo "## $pattern, -benchtime ${n}x"
  "$bin" -test.run '^$' -test.bench "$pattern" -test.benchtime "${n}x" \
    -scale.store "$store" "$@" > "$work/bench.out" 2>&1 || status=$?
  grep -v -e '^PASS$' -e '^goos:' -e '^goarch:' -e '^pkg:' "$work/bench.out" || true
  if [ "$status" != 0 ]; then echo "FAILED (exit $status)"; failed=1; fi
  echo
}

{
  echo "# Lazuli scale benchmark (scripts/bench-scale.sh)"
  echo
  echo "date       $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  changed=$(git status --porcelain 2>/dev/null | wc -l)
  echo "commit     $commit (+$changed uncommitted changes in the tree)"
  echo "machine    $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
  echo "go         $(go env GOVERSION)"
  echo "sqlite3    $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo 'not installed')"
  echo "load       $(cut -d' ' -f1-3 /proc/loadavg) (before)"
  echo "store      $store ($(stat -c %s "$store") bytes)"
  if [ -f "$store.txt" ]; then sed 's/^/           /' "$store.txt"; fi
  echo
  bench 'OpenList|LoadBig' "$count"
  bench 'IndexBuild' 1   # builds the index in $LAZULI_SCALE_CACHE for the next two
  bench 'Search/lazuli' "$count"
  bench 'Memory' 3 -scale.heapprofile "$heap"
  bench 'Search/azureal' 1
  echo "load       $(cut -d' ' -f1-3 /proc/loadavg) (after)"
  echo "heap       go tool pprof -top $bin $heap/heap-memory-1.pprof"
  [ "$failed" = 0 ] || echo "SOME BENCHMARKS FAILED"
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
echo "bench-scale: wrote $out"
! grep -q '^SOME BENCHMARKS FAILED' "$out"
