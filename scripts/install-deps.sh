#!/usr/bin/env bash
# install-deps.sh - install the Debian packages Lazuli needs: the C toolchain and
# headers to build a Fyne v2.8 app (GLFW 3.4 via cgo, X11 + Wayland backends), plus
# Xvfb, xauth, ImageMagick and xdotool to run it headless and take screenshots, and
# the PostgreSQL server the team sync tests start (teamsync, internal/pgtest).
# Lazuli's own copy of ../shared/tools/install-gui-deps.sh, so a bare clone works.
# Idempotent: runs `apt-get update` and `apt-get install` only when something is
# missing (~0.3 s when all present). Waits up to 10 min for a dpkg lock held by
# another apt. Quiet unless it fails.
#
# Usage: scripts/install-deps.sh [--build] [--xvfb] [--tools] [--pg] [--release] [--icon] [--windows] [--wine]
#                               [--x11-only] [--check] [-v]
#   (no group flag)  = --build --xvfb --tools --pg
#   --build     make, gcc, libc and GL/X11/Wayland headers for `go build`/`go vet`/
#               `go test -race` of a Fyne app (main imports fyne/v2/app -> cgo GLFW)
#   --xvfb      Xvfb + xauth + Mesa software GL (swrast) to run the app headless
#   --tools     imagemagick (import/identify: screenshots) + xdotool (clicks/keys) + sqlite3
#   --pg        postgresql (Debian's server, 15 on bookworm): the team sync tests run
#               initdb and pg_ctl from /usr/lib/postgresql/*/bin in a temporary folder
#   --release   zip, unzip, file: make release (Windows archives are zips; release-check.sh
#               reads every binary's OS/arch with file); never part of the default set
#   --node      nodejs + npm, to install the pinned agent CLIs (scripts/install-clis.sh);
#               never part of the default set, and skipped when node and npm exist
#   --icon      librsvg2-bin (rsvg-convert) to re-render assets/icon.png from the
#               SVG; never part of the default set (icon.png is committed)
#   --windows   mingw-w64 (gcc and windres) to cross-build and vet the Windows binaries, and
#               imagemagick for their icon (make windows, make vet-cross); never in the default set
#   --wine      wine (Debian's Wine 8, 64-bit) + Xvfb + xdotool + imagemagick to run the Windows
#               binaries (make wine-test); never part of the default set
#   --x11-only  skip the Wayland headers; then build with `go build -tags x11`
#   --check     only report what is missing; exit 1 if anything is
#   -v          show apt output
# Exit status: 0 ok, 1 missing (--check) or install failed, 2 usage error.
# Tested on Debian 12 (bookworm) with Go 1.26 and fyne v2.8.1.
set -euo pipefail

want_build=0 want_xvfb=0 want_tools=0 want_pg=0 want_icon=0 want_release=0 want_node=0 want_windows=0 want_wine=0 x11_only=0 check_only=0 verbose=0
for arg in "$@"; do
  case "$arg" in
    --build) want_build=1 ;;
    --xvfb) want_xvfb=1 ;;
    --tools) want_tools=1 ;;
    --pg) want_pg=1 ;;
    --icon) want_icon=1 ;;
    --release) want_release=1 ;;
    --node) want_node=1 ;;
    --windows) want_windows=1 ;;
    --wine) want_wine=1 ;;
    --x11-only) x11_only=1 ;;
    --check) check_only=1 ;;
    -v|--verbose) verbose=1 ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option: $arg" >&2; exit 2 ;;
  esac
done
if [ $((want_build + want_xvfb + want_tools + want_pg + want_icon + want_release + want_node + want_windows + want_wine)) -eq 0 ]; then
  want_build=1 want_xvfb=1 want_tools=1 want_pg=1
fi

pkgs=()
if [ "$want_build" = 1 ]; then
  # make (runs the Makefile); cgo toolchain; GL headers (GL/gl.h, libGL.so);
  # X11 headers and libs GLFW's X11 backend includes or links
  pkgs+=(make gcc libc6-dev libgl1-mesa-dev libx11-dev libxrandr-dev libxxf86vm-dev
         libxi-dev libxcursor-dev libxinerama-dev libxext-dev)
  # GLFW 3.4's Wayland backend (compiled by default since Fyne 2.8): wayland-client-core.h, xkbcommon
  [ "$x11_only" = 1 ] || pkgs+=(libwayland-dev libxkbcommon-dev)
fi
if [ "$want_xvfb" = 1 ]; then
  # virtual X server (+ xauth); Mesa DRI drivers give software OpenGL (swrast_dri.so) inside it
  pkgs+=(xvfb xauth libgl1-mesa-dri libglx-mesa0)
fi
if [ "$want_tools" = 1 ]; then
  pkgs+=(imagemagick xdotool sqlite3)  # sqlite3: the baseline of scripts/bench-scale.sh
fi
if [ "$want_pg" = 1 ]; then
  pkgs+=(postgresql)  # the tests start their own server; the package's cluster is not used
fi
if [ "$want_release" = 1 ]; then
  pkgs+=(zip unzip file)
fi
if [ "$want_icon" = 1 ]; then
  pkgs+=(librsvg2-bin)
fi
if [ "$want_windows" = 1 ]; then
  pkgs+=(gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 imagemagick)
fi
if [ "$want_wine" = 1 ]; then
  # wine64 runs the amd64 binaries (no i386 multiarch needed); Xvfb and friends for the window
  pkgs+=(wine wine64 xvfb xauth imagemagick xdotool)
fi
if [ "$want_node" = 1 ] && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
  pkgs+=(nodejs npm)
fi

is_installed() {
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null || true)" = "ii " ]
}

missing=()
for p in "${pkgs[@]}"; do
  is_installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  [ "$verbose" = 1 ] && echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
if [ "$check_only" = 1 ]; then
  echo "install-deps: missing: ${missing[*]}" >&2
  exit 1
fi

SUDO=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo -n); else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi

log=$(mktemp "${TMPDIR:-/tmp}/install-deps.XXXXXX.log")
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
# Wait for a dpkg/apt lock held by another apt process instead of failing at once.
apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)

run() { # run a command quietly; on failure the caller prints the log's tail
  if [ "$verbose" = 1 ]; then "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; fi
  "$@" >>"$log" 2>&1
}

echo "install-deps: installing: ${missing[*]}"
updated=0
for attempt in 1 2 3; do
  if run "${SUDO[@]}" apt-get "${apt_opts[@]}" -q update </dev/null; then updated=1; break; fi
  sleep $((attempt * 5))   # e.g. lists lock held by a concurrent apt-get update
done
if [ "$updated" != 1 ]; then
  echo "install-deps: apt-get update failed:" >&2; tail -n 20 "$log" >&2; exit 1
fi
if ! run "${SUDO[@]}" apt-get "${apt_opts[@]}" -y -q --no-install-recommends install "${missing[@]}" </dev/null; then
  echo "install-deps: apt-get install failed:" >&2; tail -n 30 "$log" >&2; exit 1
fi

still=()
for p in "${missing[@]}"; do is_installed "$p" || still+=("$p"); done
if [ ${#still[@]} -ne 0 ]; then
  echo "install-deps: still missing after install: ${still[*]}" >&2; exit 1
fi
echo "install-deps: installed ${#missing[@]} package(s)"
exit 0
