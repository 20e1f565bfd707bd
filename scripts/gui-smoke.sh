#!/usr/bin/env bash
# gui-smoke.sh - GUI smoke test: start the app on a private Xvfb display, capture its
# window to a PNG with scripts/screenshot.sh, and fail if the window is missing or
# blank, if the app dies early, or if Fyne logged a threading error.
#
# Usage: scripts/gui-smoke.sh [--out FILE.png] [--window TITLE] [--wait S]
#                             [--min-colors N] [--strict] [-- CMD ARGS...]
#   (no CMD)        build bin/lazuli (go build -o bin/lazuli .) and run `bin/lazuli --demo`;
#                   then install it into a temporary prefix and launch the installed
#                   .desktop entry's command (scripts/install-smoke.sh, FILE-installed.png).
#                   Skipped (exit 0, with a note) while the repo has no main package or
#                   the binary does not offer a -demo flag, unless --strict is given.
#   -- CMD ARGS...  run this command instead (no build, no -demo check): any Fyne
#                   binary, e.g. `scripts/gui-smoke.sh -- /tmp/fynetest/fynetest`
#   --out FILE      PNG to write (default out/gui-smoke.png; the log goes beside it
#                   as .log)
#   --window TITLE  capture the first visible window whose title matches this regex
#                   (default Lazuli); "" captures the whole screen
#   --wait S        seconds between start and capture (default 4)
#   --min-colors N  fewer distinct colours than this counts as blank (default 8; a
#                   blank Fyne window has 1, a window with a label has hundreds)
#   --strict        a missing main package or -demo flag fails instead of skipping
# Installs its Debian deps with scripts/install-deps.sh when run as root (idempotent).
# Exit: 0 ok or skipped, 1 build/precondition failure or Fyne thread error,
#       2 usage, 3 blank, 4 Xvfb, 5 app exited early, 6 capture/no window (screenshot.sh).
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
out="$root/out/gui-smoke.png" window=Lazuli wait_s=4 min_colors=8 strict=0
cmd=() own=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a file}; shift 2 ;;
    --window) window=${2?--window needs a title}; shift 2 ;;
    --wait) wait_s=${2:?--wait needs seconds}; shift 2 ;;
    --min-colors) min_colors=${2:?--min-colors needs a number}; shift 2 ;;
    --strict) strict=1; shift ;;
    --) shift; [ $# -gt 0 ] || { echo "gui-smoke: no command after --" >&2; exit 2; }
        cmd=("$@"); break ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "gui-smoke: unknown option '$1'" >&2; exit 2 ;;
  esac
done

skip() {
  if [ "$strict" = 1 ]; then echo "gui-smoke: FAIL: $*" >&2; exit 1; fi
  echo "gui-smoke: skipped: $*"; exit 0
}

shot="$root/scripts/screenshot.sh"
[ -f "$shot" ] || shot="$root/../shared/tools/screenshot.sh"
[ -f "$shot" ] || { echo "gui-smoke: screenshot.sh not found" >&2; exit 1; }

groups=(--xvfb --tools)
if [ ${#cmd[@]} -eq 0 ]; then
  # Our own app: it must have a main package at the repo root.
  ( cd "$root" && go list -f '{{.Name}}' . 2>/dev/null | grep -qx main ) \
    || skip "no main package at the repo root yet"
  groups+=(--build)
fi
if [ "$(id -u)" = 0 ]; then
  bash "$root/scripts/install-deps.sh" "${groups[@]}"
fi

if [ ${#cmd[@]} -eq 0 ]; then
  echo "gui-smoke: go build -o bin/lazuli ."
  ( cd "$root" && GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false" go build -o bin/lazuli . ) \
    || { echo "gui-smoke: FAIL: go build failed" >&2; exit 1; }
  # Does it offer -demo? Ask its flag usage with no display, so a GUI cannot start.
  help=$(cd "$root" && env -u DISPLAY -u WAYLAND_DISPLAY timeout 20 bin/lazuli -h 2>&1 </dev/null || true)
  grep -Eq -- '(^|[[:space:]])--?demo\b' <<<"$help" || skip "bin/lazuli -h does not list a -demo flag"
  cmd=("$root/bin/lazuli" --demo)
  own=1
fi

mkdir -p "$(dirname -- "$out")"
log="${out%.png}.log"
args=("$out" --wait "$wait_s" --min-colors "$min_colors" --log "$log")
[ -z "$window" ] || args+=(--window "$window")
echo "gui-smoke: ${cmd[*]}"
set +e
bash "$shot" "${args[@]}" -- "${cmd[@]}"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  echo "gui-smoke: FAIL: screenshot.sh exited $rc (log: $log)" >&2; exit "$rc"
fi
# Fyne 2.8 logs this when widgets are changed off the main goroutine without fyne.Do.
if grep -q 'Error in Fyne call thread' "$log"; then
  echo "gui-smoke: FAIL: Fyne threading error in $log:" >&2
  grep -m1 -A4 'Error in Fyne call thread' "$log" >&2
  exit 1
fi
echo "gui-smoke: ok: $out"
if [ "$own" = 1 ]; then
  bash "$root/scripts/install-smoke.sh" --bin "$root/bin/lazuli" --out "${out%.png}-installed.png" --wait "$wait_s"
fi
