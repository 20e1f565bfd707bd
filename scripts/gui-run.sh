#!/usr/bin/env bash
# gui-run.sh - end-to-end test of continuing a session in the real window with
# the real claude CLI; only the model is fake (internal/fakemodeld).
#
# Starts bin/lazuli on a scratch git repository under Xvfb, presses Ctrl+N (new
# session; the prompt box takes the focus), types a prompt, sends it with
# Ctrl+Enter, waits, and captures out/gui-run.png. Then checks with the CLI
# that the turn was stored (prompt, Write call, result, answer, Complete ✓) and
# that the agent really wrote hello.txt in the worktree.
# Needs the claude CLI: LAZULI_CLAUDE, or `eval "$(scripts/install-clis.sh)"`.
# Exit 0 on success (or a skip without --strict), 1 on failure.
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
strict=0
[ "${1:-}" = "--strict" ] && strict=1
claude=${LAZULI_CLAUDE:-$(command -v claude || true)}
if [ -z "$claude" ] || [ ! -x "$claude" ]; then
  echo "gui-run: no claude CLI (set LAZULI_CLAUDE or run scripts/install-clis.sh)"
  [ $strict = 1 ] && exit 1
  echo "gui-run: skipped"; exit 0
fi
bin=$root/bin/lazuli
go build -o "$bin" .
go build -o "$root/bin/fakemodeld" ./internal/fakemodeld
mkdir -p out
work=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-run.XXXXXX")
fake_pid=
cleanup() { [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "gui-run: FAIL: $*" >&2; exit 1; }

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
export LAZULI_CLAUDE=$claude

bash scripts/screenshot.sh out/gui-run.png --window Lazuli --wait 4 --size 1280x800 --keep-home \
  --log out/gui-run.log \
  --action "xdotool key ctrl+n && sleep 2 && xdotool type --delay 20 'Please create hello.txt' && xdotool key ctrl+Return" \
  --action-wait 15 \
  -- "$bin" "$proj"
! grep -q 'Error in Fyne call thread' out/gui-run.log || fail "Fyne threading error logged"
ls_json=$("$bin" ls --store "$proj" --json)
echo "$ls_json" | grep -q '"completed": true' || fail "the session is not completed: $ls_json (see out/gui-run.png)"
show=$("$bin" show --store "$proj" 1)
for want in 'Please create hello.txt' 'Write' 'I created' ; do
  grep -q -- "$want" <<<"$show" || fail "the stored turn lacks '$want':
$show"
done
grep -q '<azureal-session-context>' <<<"$show" && fail "injected context leaked into the store"
[ "$(cat "$proj/hello.txt" 2>/dev/null)" = "hello from the agent" ] || fail "the agent did not write hello.txt"
"$bin" check --store "$proj" >/dev/null || fail "lazuli check failed on the store"
echo "gui-run: a prompt sent from the window ran claude, streamed into the store, and completed (out/gui-run.png)"
