#!/usr/bin/env bash
# gui-drop.sh - end-to-end drag-and-drop test on the real window under Xvfb.
#
# 1. Starts bin/lazuli on an empty project folder, drops a .jsonl transcript on
#    the window with a real XDND drop (bin/xdnd-drop), and checks with the CLI
#    that it was imported as a session.
# 2. Starts it again and drops an .azs store: the preview dialog must open
#    (the app logs it) and the dropped file must stay byte-identical.
# Screenshots go to out/gui-drop-*.png. Needs bin/lazuli and bin/xdnd-drop
# (make build; scripts/install-tools.sh builds xdnd-drop from ../shared).
# Exit 0 on success (or a skip without --strict), 1 on failure.
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
strict=0
[ "${1:-}" = "--strict" ] && strict=1
bin=$root/bin/lazuli drop=$root/bin/xdnd-drop
if [ ! -x "$drop" ]; then
  echo "gui-drop: bin/xdnd-drop is missing (built from ../shared/tools/xdnd-drop)"
  [ $strict = 1 ] && exit 1
  echo "gui-drop: skipped"; exit 0
fi
go build -o "$bin" .
mkdir -p out
work=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-drop.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "gui-drop: FAIL: $*" >&2; exit 1; }

# 1. A transcript dropped on the window becomes a session.
proj=$work/project; mkdir -p "$proj"
cp testdata/drop/sample-claude-stream.jsonl "$work/fix-sum.jsonl"
bash scripts/screenshot.sh out/gui-drop-jsonl.png --window Lazuli --wait 3 --size 1280x800 \
  --log out/gui-drop-jsonl.log --action "$drop -name Lazuli -at 640,300 $work/fix-sum.jsonl" --action-wait 3 \
  -- "$bin" "$proj"
grep -q 'drop: imported' out/gui-drop-jsonl.log || fail "the app did not report an import (see out/gui-drop-jsonl.log)"
sessions=$("$bin" ls --store "$proj" --json)
grep -q '"event_count": 8' <<<"$sessions" || fail "the dropped transcript is not in the store: $sessions"
echo "gui-drop: .jsonl drop imported a session with 8 events"

# 2. A store dropped on the window is previewed and left untouched.
other=$work/other-machine.azs
"$bin" import --store "$other" --name "from another machine" testdata/drop/sample-claude-stream.jsonl >/dev/null
before=$(sha256sum "$other" | cut -d' ' -f1)
bash scripts/screenshot.sh out/gui-drop-azs.png --window Lazuli --wait 3 --size 1280x800 \
  --log out/gui-drop-azs.log --action "$drop -name Lazuli -at 640,300 $other" --action-wait 3 \
  -- "$bin" "$proj"
grep -q "drop: previewing $other: 1 sessions, 8 events" out/gui-drop-azs.log \
  || fail "no preview of the dropped store (see out/gui-drop-azs.log)"
after=$(sha256sum "$other" | cut -d' ' -f1)
[ "$before" = "$after" ] || fail "the dropped store was modified"
! grep -q 'Error in Fyne call thread' out/gui-drop-*.log || fail "Fyne threading error logged"
echo "gui-drop: .azs drop opened the preview and left the file untouched"

# 3. Merge from the preview: drop, click "Merge into main", check the store.
# The window is 1180x760 at 0,0 (no window manager); the button sits at the
# dialog's bottom right.
bash scripts/screenshot.sh out/gui-drop-merge.png --window Lazuli --wait 3 --size 1280x800 \
  --log out/gui-drop-merge.log \
  --action "$drop -name Lazuli -at 640,300 $other && sleep 2 && xdotool mousemove 725 528 click 1" --action-wait 3 \
  -- "$bin" "$proj"
listed=$("$bin" ls --store "$proj" --json) || fail "lazuli ls: $listed"
grep -q '"name": "from another machine"' <<<"$listed" \
  || fail "the merge did not add the dropped session (see out/gui-drop-merge.png)"
[ "$before" = "$(sha256sum "$other" | cut -d' ' -f1)" ] || fail "merging modified the dropped store"
echo "gui-drop: Merge copied the dropped session into the project store"

# 4. A text file named .azs gets a clear error and stays as it was.
printf 'just some notes\n' > "$work/notes.azs"
bash scripts/screenshot.sh out/gui-drop-bad.png --window Lazuli --wait 3 --size 1280x800 \
  --log out/gui-drop-bad.log --action "$drop -name Lazuli -at 640,300 $work/notes.azs" --action-wait 2 \
  -- "$bin" "$proj"
grep -q 'open notes.azs: .*not an SQLite database' out/gui-drop-bad.log || fail "no clear error for a non-SQLite .azs"
[ "$(cat "$work/notes.azs")" = "just some notes" ] || fail "the bad file was modified"
echo "gui-drop: a text file named .azs got a clear error and was left untouched"
