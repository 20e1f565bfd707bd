#!/usr/bin/env bash
# gui-run.sh - end-to-end test of continuing a session in the real window with
# the real claude CLI; only the model is fake (internal/fakemodeld).
#
# Starts bin/lazuli on a scratch git repository under Xvfb, presses Ctrl+N (new
# session; the prompt box takes the focus), types a prompt, sends it with
# Ctrl+Enter, waits, and captures out/gui-run.png. Then checks with the CLI
# that the turn was stored (prompt, Write call, result, answer, Complete ✓) and
# that the agent really wrote hello.txt in the worktree. Then opens a session over the
# compaction threshold and checks it compacts itself (out/gui-compact.png).
# Needs the claude CLI: LAZULI_CLAUDE, or `eval "$(scripts/install-clis.sh)"`.
# Exit 0 on success (or a skip without --strict), 1 on failure.
set -euo pipefail

name=gui-run agent=claude
# shellcheck source=scripts/gui-run-setup.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/gui-run-setup.sh"

bash scripts/screenshot.sh out/gui-run.png --window Lazuli --wait 4 --size 1280x800 --keep-home \
  --log out/gui-run.log \
  --action "xdotool key ctrl+n && sleep 2 && xdotool type --delay 20 'Please create hello.txt' && xdotool key ctrl+Return" \
  --action-wait 15 \
  -- "$bin" "$proj"
! grep -q 'Error in Fyne call thread' out/gui-run.log || fail "Fyne threading error logged"
ls_json=$("$bin" ls --store "$proj" --json)
grep -q '"completed": true' <<<"$ls_json" || fail "the session is not completed: $ls_json (see out/gui-run.png)"
show=$("$bin" show --store "$proj" 1)
for want in 'Please create hello.txt' 'Write' 'I created' ; do
  grep -q -- "$want" <<<"$show" || fail "the stored turn lacks '$want':
$show"
done
grep -q '<azureal-session-context>' <<<"$show" && fail "injected context leaked into the store"
[ "$(cat "$proj/hello.txt" 2>/dev/null)" = "hello from the agent" ] || fail "the agent did not write hello.txt"
"$bin" check --store "$proj" >/dev/null || fail "lazuli check failed on the store"
echo "gui-run: a prompt sent from the window ran claude, streamed into the store, and completed (out/gui-run.png)"

# 2. A session over the 400,000-character threshold compacts itself when opened. With no
# CLI available the built-in summarizer writes the summary; no event may be lost.
big=$work/big; mkdir -p "$big"
git -C "$big" init -q -b main
text=$(printf 'Details of the refactoring. %.0s' $(seq 2600))
for i in 0 1 2 3 4 5; do
  printf '{"type":"user","uuid":"u%d","parentUuid":null,"sessionId":"big","timestamp":"2026-11-20T10:0%d:00Z","message":{"role":"user","content":"Step %d: refactor module %d."}}\n' "$i" "$i" "$i" "$i"
  printf '{"type":"assistant","uuid":"a%d","parentUuid":"u%d","sessionId":"big","timestamp":"2026-11-20T10:0%d:30Z","message":{"id":"m%d","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"I decided to split module %d. %s"}]}}\n' "$i" "$i" "$i" "$i" "$i" "$text"
done > "$work/big.jsonl"
"$bin" import --store "$big" --name "Big refactor" "$work/big.jsonl" >/dev/null
before=$("$bin" ls --store "$big" --json)
grep -q '"event_count": 12' <<<"$before" || fail "the big session was not imported: $before"
chars_before=$(echo "$before" | sed -n 's/.*"chars_since_compaction": \([0-9]*\).*/\1/p')
LAZULI_CLAUDE=/nonexistent LAZULI_CODEX=/nonexistent \
bash scripts/screenshot.sh out/gui-compact.png --window Lazuli --wait 4 --size 1280x800 \
  --log out/gui-compact.log --action "xdotool mousemove 70 167 click 1" --action-wait 8 \
  -- "$bin" "$big"
grep -q 'compaction: S1 .* by builtin through seq 6' out/gui-compact.log \
  || fail "the big session was not compacted on open (see out/gui-compact.log, out/gui-compact.png)"
after=$("$bin" ls --store "$big" --json)
grep -q '"event_count": 12' <<<"$after" || fail "compaction lost events: $after"
chars=$(echo "$after" | sed -n 's/.*"chars_since_compaction": \([0-9]*\).*/\1/p')
[ -n "$chars" ] && [ "$chars" -lt 400000 ] || fail "the context did not drop below the threshold: $after"
grep -Eq '"after_seq": ?6[,}]' <<<"$("$bin" dump --store "$big")" || fail "no compaction row with after_seq 6"
"$bin" check --store "$big" >/dev/null || fail "lazuli check failed after compaction"
echo "gui-run: a $chars_before-character session compacted itself on open (context now $chars characters, 12 events kept)"
