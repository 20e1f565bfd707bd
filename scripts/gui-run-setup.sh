# gui-run-setup.sh - what gui-run.sh and gui-run-gemini.sh share; sourced (not run)
# after they set name (the script's name in messages) and agent (claude, gemini).
#
# Finds the agent's CLI (LAZULI_<AGENT>, else PATH; without it a skip, or a failure
# with --strict), builds bin/lazuli and bin/fakemodeld, makes a scratch git project
# ($proj, in $work, removed at exit), starts fakemodeld there, sources the
# environment it writes and exports LAZULI_<AGENT>. Defines fail and sets bin.
# shellcheck shell=bash

: "${name:?}" "${agent:?}"
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
strict=0
[ "${1:-}" = "--strict" ] && strict=1
var=LAZULI_${agent^^}
cli=${!var:-$(command -v "$agent" || true)}
if [ -z "$cli" ] || [ ! -x "$cli" ]; then
  echo "$name: no $agent CLI (set $var or run scripts/install-clis.sh)"
  [ $strict = 1 ] && exit 1
  echo "$name: skipped"; exit 0
fi
bin=$root/bin/lazuli
go build -o "$bin" .
go build -o "$root/bin/fakemodeld" ./internal/fakemodeld
mkdir -p out
work=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-$name.XXXXXX")
fake_pid=
cleanup() { [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }

proj=$work/project
mkdir -p "$proj"
git -C "$proj" init -q -b main
git -C "$proj" -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m init
"$root/bin/fakemodeld" -home "$work/home" -env "$work/env.sh" 2>"$work/fakemodeld.log" &
fake_pid=$!
for _ in $(seq 50); do [ -s "$work/env.sh" ] && break; sleep 0.1; done
[ -s "$work/env.sh" ] || fail "fakemodeld did not start: $(cat "$work/fakemodeld.log")"
# shellcheck disable=SC1091
source "$work/env.sh"
export "$var=$cli"
