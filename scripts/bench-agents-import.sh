#!/usr/bin/env bash
# bench-agents-import.sh - each agent's import-native speed as a user meets it (issue 32), beside
# Claude's in the same run: `lazuli import-native` run as a process into a fresh store and cache,
# timed from exec to exit by internal/proctime (CPU and peak RSS from the child's rusage), with
# only one agent's history folder pointed at its native workload and every other at an empty
# folder. N rounds of Claude, then each agent, one after the other (Claude, Gemini, ..., Claude,
# Gemini, ...), first with --no-index (the import alone), then the one-pass default (import and
# search index). MB/s is the history's bytes on disk divided by the wall time; events per MB
# (what the import stored) say how dense each agent's history is.
#
# Workloads: Claude's is the Claude part of the native workload (bench-native.sh's,
# ~/.cache/lazuli-native, built if missing); each other agent's is written by the real CLI
# against the scripted model and copied with fresh ids (internal/agentwork, cached in
# ~/.cache/lazuli-agentwork; the CLIs come from scripts/install-clis.sh).
#
# Equal work: claude-work is the real claude CLI driven through the same scripted sessions as
# the other agents (agentwork -agent claude). Each workload is whole copies of those sessions
# (agentwork's COPIES), so copies per second compare the agents on the same work, whatever
# their formats' bytes.
#
# Usage: scripts/bench-agents-import.sh [--quick] [AGENT...]
#   (default: claude-work gemini qwen opencode pi copilot)
#   --quick: 1 round instead of 3
# Environment:
#   LAZULI_BENCH_ROUNDS  rounds (default 3)
#   LAZULI_BENCH_BIN     the lazuli binary (default: builds out/lazuli-bench, the headless build)
#   LAZULI_NATIVE_DIR    Claude's workload (default ~/.cache/lazuli-native)
#   LAZULI_AGENTWORK_MB  megabytes of each agent's workload (default 100)
#   LAZULI_BENCH_DIR     where stores and caches go (default: a new temp folder, removed at the end)
#   LAZULI_BENCH_OUT     the JSON report (default out/bench-agents-import-DATE.json; .md beside it)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${LAZULI_BENCH_ROUNDS:-3}
if [ "${1:-}" = --quick ]; then rounds=1; shift; fi
agents=("$@")
if [ ${#agents[@]} -eq 0 ]; then agents=(claude-work gemini qwen opencode pi copilot); fi
mb=${LAZULI_AGENTWORK_MB:-100}

claude_home=${LAZULI_NATIVE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lazuli-native}
if [ ! -d "$claude_home/.claude/projects" ]; then
  echo "bench-agents-import: writing the native workload to $claude_home"
  go run ./internal/nativetree/cmd/nativework -home "$claude_home"
fi
eval "$(scripts/install-clis.sh)"
export LAZULI_GEMINI LAZULI_QWEN LAZULI_OPENCODE LAZULI_PI LAZULI_COPILOT
mkdir -p out
bin=${LAZULI_BENCH_BIN:-}
if [ -z "$bin" ]; then
  CGO_ENABLED=0 go build -tags nowindow -ldflags "-X main.commit=$(git rev-parse --short=12 HEAD)" -o out/lazuli-bench .
  bin=out/lazuli-bench
fi
bin=$(realpath "$bin")
work=${LAZULI_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/lazuli-agents-import.XXXXXX")}
mkdir -p "$work"
work=$(realpath "$work")
cleanup() { if [ "${LAZULI_BENCH_KEEP:-}" != 1 ]; then rm -rf "$work"; fi; }
trap cleanup EXIT
go build -o "$work/proctime" ./internal/proctime/cmd/proctime
go build -o "$work/agentwork" ./internal/agentwork/cmd/agentwork
pt=$work/proctime
empty=$work/empty
mkdir -p "$empty"

# flag AGENT: import-native's flag of an agent's history folder; hist AGENT HOME: that folder.
flag() { case $1 in claude | claude-work) echo claude-dir ;; codex) echo codex-dir ;; *) echo "$1-dir" ;; esac; }
# cli AGENT: the CLI that wrote AGENT's workload (agentwork's -agent).
cli() { echo "${1%-work}"; }
hist() {
  case $1 in
    claude | claude-work) echo "$2/.claude/projects" ;; gemini) echo "$2/.gemini/tmp" ;; qwen) echo "$2/.qwen/projects" ;;
    opencode) echo "$2/.local/share/opencode" ;; pi) echo "$2/.pi/agent/sessions" ;; copilot) echo "$2/.copilot/session-state" ;;
  esac
}
# bytes AGENT HOME: the history's bytes on disk (Copilot's with its session store beside it;
# OpenCode's database alone, not the logs and snapshot repositories beside it).
bytes() {
  local d; d=$(hist "$1" "$2")
  if [ "$1" = opencode ]; then
    du -sbLc "$d"/opencode.db* | tail -1 | awk '{print $1}'
  elif [ "$1" = copilot ] && [ -f "$2/.copilot/session-store.db" ]; then
    du -sbL "$d" "$2/.copilot/session-store.db" | awk '{s+=$1} END {print s}'
  else
    du -sbL "$d" | awk '{print $1}'
  fi
}
files() {
  if [ "$1" = opencode ]; then find -L "$(hist "$1" "$2")" -maxdepth 1 -name 'opencode.db*' | wc -l
  else find -L "$(hist "$1" "$2")" -type f | wc -l; fi
}
# args AGENT HOME: import-native into AGENT's own store, with only AGENT's folder at its history.
args() {
  local a=("$bin" import-native --store "$work/st/$1/wt/.azureal/sessions.azs")
  for s in claude codex gemini qwen opencode pi copilot; do
    if [ "$s" = "$(cli "$1")" ]; then a+=("--$(flag "$s")" "$(hist "$s" "$2")"); else a+=("--$(flag "$s")" "$empty"); fi
  done
  printf '%s\n' "${a[@]}"
}

stamp=$(date -u +%Y%m%dT%H%M%SZ)
json=${LAZULI_BENCH_OUT:-out/bench-agents-import-$stamp.json}
md=${json%.json}.md
lzc=$("$bin" --version 2>/dev/null | sed -n 's/.*commit \([0-9a-f]\{7,\}\).*/\1/p')
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
declare -A home
copies=""
home[claude]=$claude_home
sizes="claude $(bytes claude "$claude_home") $(files claude "$claude_home")"
for a in "${agents[@]}"; do
  echo "bench-agents-import: the $a workload (agentwork -agent $(cli "$a") -mb $mb)"
  home[$a]=$("$work/agentwork" -agent "$(cli "$a")" -mb "$mb" -fixtures ../shared/fixtures/transcripts)
  sizes+=$'\n'"$a $(bytes "$a" "${home[$a]}") $(files "$a" "${home[$a]}")"
  copies+="$a $(cat "$(dirname "${home[$a]}")/COPIES")"$'\n'
done
"$pt" init -o "$json" -commit "Lazuli=${lzc:-unknown}" -workload "$(echo "$sizes" | awk '{printf "%s%s %d files %.0f MB", (NR>1?"; ":""), $1, $3, $2/1e6}')"
echo "$cpu; load $(cut -d' ' -f1-3 /proc/loadavg); Lazuli ${lzc:-commit unknown}"

# Before each round: a new store and cache for every import (none sees another's sessions or index).
reset="rm -rf $(printf %q "$work/st")"
for a in claude "${agents[@]}"; do
  reset+=" && mkdir -p $(printf %q "$work/st/$a/wt/.azureal") $(printf %q "$work/st/$a/cache")"
done
for mode in no-index index; do
  extra=(--no-index)
  row="import --no-index"
  if [ $mode = index ]; then extra=() row="import + index"; fi
  mapfile -t ca < <(args claude "$claude_home")
  specs=("claude:$row" +stdout="$work/claude.out" +env="LAZULI_CACHE_DIR=$work/st/claude/cache" "${ca[@]}" "${extra[@]}")
  for a in "${agents[@]}"; do
    mapfile -t aa < <(args "$a" "${home[$a]}")
    specs+=(:: "$a:$row" +stdout="$work/$a.out" +env="LAZULI_CACHE_DIR=$work/st/$a/cache" "${aa[@]}" "${extra[@]}")
  done
  echo "== $row, $rounds rounds of claude ${agents[*]} (load $(cut -d' ' -f1-3 /proc/loadavg))"
  "$pt" run -o "$json" -n "$rounds" -warmup 0 -detail -before "$reset" "${specs[@]}"
done
"$pt" table "$json" > "$md"
# The events each import stored (its last line: "Imported N new sessions with E events; ...").
for a in claude "${agents[@]}"; do
  sizes=$(echo "$sizes" | awk -v a="$a" -v e="$(grep -o 'with [0-9,]* events' "$work/$a.out" | tail -1 | tr -dc 0-9)" \
    '$1 == a {$4 = e} {print}')
done

# The MB/s table: bytes ÷ wall p50 and p95, CPU and peak RSS p50, Claude's beside each.
python3 - "$json" "$sizes" "$cpu" "$copies" >> "$md" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
copies = {l.split()[0]: int(l.split()[1]) for l in sys.argv[4].splitlines() if l.strip()}
size = {l.split()[0]: (int(l.split()[1]), int(l.split()[2])) for l in sys.argv[2].splitlines()}
events = {l.split()[0]: int(l.split()[3] or 0) for l in sys.argv[2].splitlines() if len(l.split()) > 3}
print("\n| agent | workload | events per MB |")
print("|---|---|---|")
for a, (b, f) in size.items():
    print(f"| {a} | {f} files, {b/1e6:.0f} MB | {events.get(a, 0)/(b/1e6):.0f} |")
print("\n| agent | mode | workload | MB/s p50 (p95 wall) | CPU s p50 | peak RSS MiB | Claude MB/s p50 (p95), same run | ratio | load |")
print("|---|---|---|---|---|---|---|---|---|")
by = {}
for it in rep["items"]:
    by[(it["program"], it["row"])] = it
for (prog, row), it in by.items():
    if prog == "claude":
        continue
    c = by.get(("claude", row))
    b, f = size[prog]
    cb, _ = size["claude"]
    mbps = lambda it, bb, q: bb / 1e6 / (it["wall_ms"][q] / 1e3)
    mode = row
    line = f"| {prog} | {mode} | {f} files, {b/1e6:.0f} MB | {mbps(it, b, 'p50'):.0f} ({mbps(it, b, 'p95'):.0f}) | " \
           f"{it['cpu_ms']['p50']/1e3:.1f} | {it['peak_rss_kib']['p50']/1024:.0f} | "
    if c:
        line += f"{mbps(c, cb, 'p50'):.0f} ({mbps(c, cb, 'p95'):.0f}) | {mbps(it, b, 'p50')/mbps(c, cb, 'p50'):.2f} | "
    else:
        line += "– | – | "
    line += f"{it['load'][0]:.1f}–{it['load'][1]:.1f} |"
    print(line)
if "claude-work" in copies:
    print("\nEqual work: each workload is whole copies of the same scripted sessions, driven through each real CLI;")
    print("copies/s is copies ÷ wall p50, its ratio is to claude-work's (Claude Code's format of the same work) in the same run.\n")
    print("| agent | mode | copies | MB per copy | copies/s | ratio to claude-work |")
    print("|---|---|---|---|---|---|")
    for (prog, row), it in by.items():
        if prog not in copies:
            continue
        rate = lambda p, r: copies[p] / (by[(p, r)]["wall_ms"]["p50"] / 1e3)
        ref = rate("claude-work", row) if ("claude-work", row) in by else None
        ratio = f"{rate(prog, row) / ref:.2f}" if ref else "–"
        print(f"| {prog} | {row} | {copies[prog]} | {size[prog][0] / 1e6 / copies[prog]:.2f} | {rate(prog, row):.1f} | {ratio} |")
print(f"\n{sys.argv[3]}; Claude's workload {size['claude'][1]} files, {size['claude'][0]/1e6:.0f} MB")
PY
cat "$md"
echo "report: $json, $md"
