#!/usr/bin/env bash
# compare-search.sh — do Lazuli's search answers list every session agentsview's do?
#
# Pages through a running agentsview's search API (GET /api/v1/search?q=Q&limit=500&cursor=N,
# until its "next" is 0) and collects the distinct session ids it lists, runs
# `lazuli search --sessions --json --limit 1000000 Q` on a store imported from the same native
# history, maps Lazuli's sessions to the native ids they were imported from
# (lazuli_native_imports: a Claude session's id is the file's sessionId, a Codex one's is
# agentsview's "codex:<id>"), and prints the counts and the sessions agentsview lists that
# Lazuli does not (it exits 1 when there are any).
#
# Usage: scripts/compare-search.sh STORE [QUERY...]   (default query: error)
# Environment:
#   LAZULI      the lazuli binary (default: lazuli on PATH)
#   AV_URL      agentsview's address (default: http://127.0.0.1:18123)
#   LAZULI_CACHE_DIR, as for lazuli itself (the store's search index)
# Needs curl, python3 and sqlite3. Start agentsview first, e.g.
#   CLAUDE_PROJECTS_DIR=… CODEX_SESSIONS_DIR=… AGENT_VIEWER_DATA_DIR=$(mktemp -d) \
#     agentsview serve -no-browser -port 18123
# and wait for its "listening at" line (its first sync imports everything).
set -euo pipefail

store=${1:?usage: compare-search.sh STORE [QUERY...]}
shift
query=${*:-error}
lazuli=${LAZULI:-lazuli}
av=${AV_URL:-http://127.0.0.1:18123}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# agentsview: every page of hits, then the distinct session ids.
cursor=0
: >"$work/av.jsonl"
while :; do
	curl -fsS --get "$av/api/v1/search" --data-urlencode "q=$query" --data "limit=500" --data "cursor=$cursor" >"$work/page.json"
	cursor=$(python3 - "$work/page.json" "$work/av.jsonl" <<'EOF'
import json, sys
page = json.load(open(sys.argv[1]))
with open(sys.argv[2], "a") as out:
    for r in page["results"]:
        out.write(r["session_id"] + "\n")
print(page.get("next") or 0)
EOF
)
	[ "$cursor" = 0 ] && break
done
sort -u "$work/av.jsonl" >"$work/av.ids"

# Lazuli: every matching session, mapped to agentsview's ids.
start=$(date +%s.%N)
"$lazuli" search --store "$store" --sessions --json --limit 1000000 -- "$query" >"$work/lz.json"
end=$(date +%s.%N)
sqlite3 -readonly -separator ' ' "$store" \
	"SELECT session_id, CASE agent WHEN 'codex' THEN 'codex:' || native_id ELSE native_id END FROM lazuli_native_imports" >"$work/native.map"
python3 - "$work/lz.json" "$work/native.map" "$work/av.ids" "$query" "$(echo "$end - $start" | bc)" <<'EOF'
import json, sys
answer = json.load(open(sys.argv[1]))
native = dict(line.split(" ", 1) for line in open(sys.argv[2]).read().splitlines())
av = set(open(sys.argv[3]).read().split())
lz = set()
unmapped = 0
for s in answer["sessions"]:
    n = native.get(str(s["session_id"]))
    if n is None:
        unmapped += 1
    else:
        lz.add(n)
missing = sorted(av - lz)
print(f"query {sys.argv[4]!r}: agentsview lists {len(av)} sessions; lazuli {len(answer['sessions'])} "
      f"({sum(s['hits'] for s in answer['sessions'])} hits, more={answer['more']}, partial={answer['partial']}, "
      f"{unmapped} not from a native import) in {float(sys.argv[5]):.2f} s")
print(f"in both: {len(av & lz)}; only lazuli: {len(lz - av)}; only agentsview: {len(missing)}")
for m in missing:
    print("  only agentsview:", m)
sys.exit(1 if missing else 0)
EOF
