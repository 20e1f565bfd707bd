#!/usr/bin/env bash
# screenshot.sh - run a GUI command on a private Xvfb display and save a PNG.
#
# Usage: screenshot.sh OUT.png [--wait SECONDS] [--size WxH] [--window TITLE]
#                      [--action 'SHELL CMD'] [--action-wait SECONDS]
#                      [--min-colors N] [--settle SECONDS] [--log FILE] [--keep-home]
#                      -- COMMAND ARGS...
#   --wait SECONDS      wait this long after start before capturing (default 3)
#   --settle SECONDS    while the window is missing or the capture blank, look again
#                       every half second for up to this long before failing
#                       (default 20): a slow or busy machine paints late, and a
#                       window that never paints still fails
#   --size WxH          screen size (default 1024x768), depth 24
#   --window TITLE      capture only the first window whose title matches TITLE
#                       (regex, via xdotool) instead of the whole screen
#   --action 'CMD'      run CMD with bash (DISPLAY set) after --wait, e.g.
#                       'xdotool mousemove 60 100 click 1'; then wait --action-wait
#   --action-wait SECS  wait after --action before capturing (default 1)
#   --min-colors N      fail if the PNG has fewer than N distinct colours (default 2:
#                       a single-colour capture counts as blank)
#   --log FILE          write the command's stdout/stderr here (default: temp file,
#                       its tail is printed on failure)
#   --keep-home         run with the caller's HOME/XDG_* (default: a fresh empty
#                       HOME so app preferences/caches are isolated and repeatable)
# Starts Xvfb on a free display (Xvfb -displayfd picks it), runs COMMAND in its own
# session with DISPLAY set, a private XDG_RUNTIME_DIR, Wayland unset and Mesa
# software GL forced; captures with ImageMagick `import`; then stops only the
# processes it started (the command's process group, then Xvfb, by PID).
# Exit: 0 ok, 2 usage/missing tool, 3 blank capture, 4 Xvfb failed,
#       5 command exited before capture, 6 capture failed, 7 --action failed.
# Needs: xvfb, imagemagick (+ xdotool for --window); see scripts/install-deps.sh.
# Lazuli's own copy of ../shared/tools/screenshot.sh (so CI does not need ../shared).
set -uo pipefail

die() { local code=$1; shift; echo "screenshot: $*" >&2; exit "$code"; }
usage() { awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0" >&2; exit "${1:-2}"; }

[ $# -ge 1 ] || usage 2
case "$1" in -h|--help) usage 0 ;; esac
out=$1; shift
wait_s=3 size=1024x768 window="" action="" action_wait=1 min_colors=2 logfile="" keep_home=0
settle_s=20
while [ $# -gt 0 ]; do
  case "$1" in
    --wait) wait_s=${2:?}; shift 2 ;;
    --size) size=${2:?}; shift 2 ;;
    --window) window=${2:?}; shift 2 ;;
    --action) action=${2:?}; shift 2 ;;
    --action-wait) action_wait=${2:?}; shift 2 ;;
    --min-colors) min_colors=${2:?}; shift 2 ;;
    --settle) settle_s=${2:?}; shift 2 ;;
    --log) logfile=${2:?}; shift 2 ;;
    --keep-home) keep_home=1; shift ;;
    --) shift; break ;;
    -h|--help) usage 0 ;;
    *) die 2 "unknown option '$1' (did you forget '--' before the command?)" ;;
  esac
done
[ $# -ge 1 ] || die 2 "no command given after --"
[[ "$size" =~ ^[0-9]+x[0-9]+$ ]] || die 2 "--size must be WxH, got '$size'"
[[ "$settle_s" =~ ^[0-9]+$ ]] || die 2 "--settle must be whole seconds, got '$settle_s'"
for t in Xvfb import identify; do
  command -v "$t" >/dev/null 2>&1 || die 2 "'$t' not found; run scripts/install-deps.sh --xvfb --tools"
done
[ -z "$window" ] || command -v xdotool >/dev/null 2>&1 || die 2 "--window needs xdotool"
out_dir=$(dirname -- "$out"); [ -d "$out_dir" ] || die 2 "output directory '$out_dir' does not exist"

work=$(mktemp -d "${TMPDIR:-/tmp}/screenshot.XXXXXX") || die 2 "mktemp failed"
[ -n "$logfile" ] || logfile="$work/command.log"
xvfb_pid="" cmd_pid=""

cleanup() {
  # Stop only what we started: the command's process group (it was started with
  # setsid, so its PGID is its PID), then Xvfb. TERM first, KILL after ~3 s.
  local p
  if [ -n "$cmd_pid" ] && kill -0 "$cmd_pid" 2>/dev/null; then
    kill -TERM -- "-$cmd_pid" 2>/dev/null || kill -TERM "$cmd_pid" 2>/dev/null
    for _ in $(seq 30); do kill -0 "$cmd_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$cmd_pid" 2>/dev/null || kill -KILL "$cmd_pid" 2>/dev/null
  fi
  [ -z "$cmd_pid" ] || wait "$cmd_pid" 2>/dev/null
  if [ -n "$xvfb_pid" ] && kill -0 "$xvfb_pid" 2>/dev/null; then
    kill -TERM "$xvfb_pid" 2>/dev/null
    for _ in $(seq 30); do kill -0 "$xvfb_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$xvfb_pid" 2>/dev/null
  fi
  [ -z "$xvfb_pid" ] || wait "$xvfb_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

show_log() { echo "--- last lines of the command's output:" >&2; tail -n 25 "$logfile" >&2 2>/dev/null; }

# 1. Xvfb on a free display: -displayfd makes the server choose one and print it when ready.
exec {dfd}>"$work/display"
Xvfb -displayfd "$dfd" -screen 0 "${size}x24" -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
exec {dfd}>&-
disp=""
for _ in $(seq 100); do   # up to 10 s
  disp=$(tr -dc '0-9' <"$work/display" 2>/dev/null)
  [ -n "$disp" ] && break
  kill -0 "$xvfb_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$disp" ] || { cat "$work/xvfb.log" >&2; die 4 "Xvfb did not start"; }
export DISPLAY=":$disp"

# 2. The command, with a writable HOME/XDG environment and software GL on X11.
# (Fyne keeps preferences in $XDG_CONFIG_HOME/fyne/<appID>/ and creates only the last
# levels of $XDG_CACHE_HOME/fyne/<appID>, so both parents must exist.)
mkdir -p "$work/runtime" && chmod 700 "$work/runtime"
unset_args=(-u WAYLAND_DISPLAY)   # env(1) wants all -u options before any NAME=VALUE
home=${HOME:-}
if [ "$keep_home" = 0 ] || [ -z "$home" ] || ! [ -w "$home" ]; then
  home="$work/home"
  unset_args+=(-u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME)
  mkdir -p "$home/.cache" "$home/.config" "$home/.local/share"
else
  mkdir -p "${XDG_CACHE_HOME:-$home/.cache}" "${XDG_CONFIG_HOME:-$home/.config}" 2>/dev/null
fi
setsid env "${unset_args[@]}" HOME="$home" XDG_RUNTIME_DIR="$work/runtime" LIBGL_ALWAYS_SOFTWARE=1 \
  "$@" >"$logfile" 2>&1 </dev/null &
cmd_pid=$!

sleep "$wait_s"
if ! kill -0 "$cmd_pid" 2>/dev/null; then
  wait "$cmd_pid"; rc=$?; cmd_pid=""
  show_log; die 5 "command exited (status $rc) before the capture"
fi

# 3. Optional interaction (xdotool etc.) before capturing.
if [ -n "$action" ]; then
  if ! bash -c "$action" >>"$work/action.log" 2>&1; then
    cat "$work/action.log" >&2; die 7 "--action failed: $action"
  fi
  sleep "$action_wait"
fi

# 4. Capture the screen (or one window) and reject blank images. A window not yet
# mapped or not yet painted is looked for again until --settle runs out.
capture() {   # sets capture_err; 0 when $out holds a capture that is not blank
  local target=root
  if [ -n "$window" ]; then
    target=$(xdotool search --onlyvisible --name "$window" 2>/dev/null | sed -n 1p)
    [ -n "$target" ] || { capture_err="no visible window titled '$window'"; return 6; }
  fi
  if ! import -display "$DISPLAY" -window "$target" "$out" 2>"$work/import.log"; then
    capture_err="import failed: $(head -c 300 "$work/import.log")"; return 6
  fi
  colors=$(identify -format '%k' "$out" 2>/dev/null) || { capture_err="cannot read back $out"; return 6; }
  geom=$(identify -format '%wx%h' "$out" 2>/dev/null)
  if [ "${colors:-0}" -lt "$min_colors" ]; then
    capture_err="capture looks blank: $colors distinct colour(s) in $out ($geom)"; return 3
  fi
}
start=$SECONDS tries=0
while :; do
  tries=$((tries + 1))
  capture && break
  rc=$?
  if [ $((SECONDS - start)) -ge "$settle_s" ]; then show_log; die "$rc" "$capture_err"; fi
  if [ -n "$cmd_pid" ] && ! kill -0 "$cmd_pid" 2>/dev/null; then
    wait "$cmd_pid"; status=$?; cmd_pid=""
    show_log; die 5 "command exited (status $status) before a capture that was not blank ($capture_err)"
  fi
  sleep 0.5
done
[ "$tries" = 1 ] || echo "screenshot: the first capture was not ready; capture $tries, $((SECONDS - start)) s later, was"
echo "screenshot: wrote $out ($geom, $colors colours, display $DISPLAY)"
exit 0
