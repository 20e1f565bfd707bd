#!/usr/bin/env bash
# gui-run-gemini.sh - end-to-end test of a new session run with the real Gemini
# CLI from the real window; only the model is fake (internal/fakemodeld, which
# serves Gemini's API and writes $HOME/.gemini/settings.json, fakemodel.GeminiEnv).
#
# Starts bin/lazuli on a scratch git repository under Xvfb, presses Ctrl+N (new
# session), opens the prompt box's model menu and picks "gemini-2.5-pro · Gemini
# CLI" (xdotool clicks, in window coordinates), types a prompt, sends it with
# Ctrl+Enter, waits, and captures out/gui-run-gemini.png. Then checks with the CLI
# that the turn was stored with the gemini backend (prompt, Gemini's write_file as a Write call, its
# result, answer, Complete ✓) and that Gemini CLI really wrote hello.txt.
# Needs the gemini CLI: LAZULI_GEMINI, or `eval "$(scripts/install-clis.sh)"`.
# Exit 0 on success (or a skip without --strict), 1 on failure.
set -euo pipefail

name=gui-run-gemini agent=gemini
# shellcheck source=scripts/gui-run-setup.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/gui-run-setup.sh"

# The window is 1180x760 (screenshot.sh --size 1280x800); the model menu sits at
# the prompt box's bottom left (470,734) and its popup lists gemini-2.5-pro at
# (410,526) (the menu lists Claude's and Codex's models first: a new model above it moves
# it, and the checks below then fail on the agent). A click in the entry (740,684) gives it
# the focus back. The action then waits for the turn's Complete in the store (at most 3
# minutes), not a fixed time, so a busy machine only makes it slower.
# shellcheck disable=SC2016 # expanded by the action's own bash, once the window is up
win='$(xdotool search --name Lazuli | sed -n 1p)'
bash scripts/screenshot.sh out/gui-run-gemini.png --window Lazuli --wait 4 --size 1280x800 --keep-home \
  --log out/gui-run-gemini.log \
  --action "xdotool key ctrl+n && sleep 2 \
&& xdotool mousemove --window $win 470 734 click 1 && sleep 1 \
&& xdotool mousemove --window $win 410 526 click 1 && sleep 1 \
&& xdotool mousemove --window $win 740 684 click 1 && sleep 0.5 \
&& xdotool type --delay 20 'Please create hello.txt' && xdotool key ctrl+Return \
&& for _ in \$(seq 360); do '$bin' ls --store '$proj' --json 2>/dev/null | grep -q '\"completed\": true' && break; sleep 0.5; done" \
  --action-wait 2 \
  -- "$bin" "$proj"
! grep -q 'Error in Fyne call thread' out/gui-run-gemini.log || fail "Fyne threading error logged"
ls_json=$("$bin" ls --store "$proj" --json)
grep -q '"completed": true' <<<"$ls_json" || fail "the session is not completed: $ls_json (see out/gui-run-gemini.png, out/gui-run-gemini.log)"
grep -q '"agent": "gemini"' <<<"$ls_json" || fail "the session did not run Gemini CLI (the model menu's pick?): $ls_json (see out/gui-run-gemini.png)"
show=$("$bin" show --store "$proj" 1)
for want in 'Please create hello.txt' 'Tool: Write' 'Result: Write' 'I created' 'model gemini-2.5-pro' '✓ completed'; do
  grep -q -- "$want" <<<"$show" || fail "the stored turn lacks '$want':
$show"
done
grep -q '<azureal-session-context>' <<<"$show" && fail "injected context leaked into the store"
[ "$(cat "$proj/hello.txt" 2>/dev/null)" = "hello from Gemini" ] || fail "Gemini CLI did not write hello.txt"
"$bin" check --store "$proj" >/dev/null || fail "lazuli check failed on the store"
echo "gui-run-gemini: a prompt sent from the window with the Gemini model chosen ran Gemini CLI, streamed into the store, and completed (out/gui-run-gemini.png)"
