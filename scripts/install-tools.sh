#!/usr/bin/env bash
# install-tools.sh - install Lazuli's Go dev tools into the repo's bin/ (gitignored).
# Idempotent: a tool is (re)built only when it is missing, has the wrong version, or
# was compiled by a different Go than the one on PATH (~0.1 s when all are current).
#
#   bin/staticcheck  honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION
#                    (from the Go module proxy; ~40 s the first time)
#   bin/xdnd-drop    built from ../shared/tools/xdnd-drop (XDND file drops under Xvfb
#                    for GUI tests); skipped with a note when that folder is absent
#
# Usage: scripts/install-tools.sh [--check] [-v]
#   --check  only report what is missing or stale; exit 1 if anything is
#   -v       say what is already current
# Env: STATICCHECK_VERSION (default below), GO (default: go).
# Exit status: 0 ok, 1 missing (--check) or install failed, 2 usage error.
#
# Why this staticcheck version: the proxy here serves honnef.co/go/tools v0.6.1,
# v0.7.0, v0.8.0, v0.8.1 and v0.8.2 (= staticcheck 2026.2.2, 2026-10-12, the newest;
# v0.8.3 and v0.9.0 are "not available"). Ask for exact versions: a version list or
# @latest from a proxy can be stale. Checked on Go 1.26.8 code (new(expr),
# errors.AsType): it analyses it and reports ST1003/SA4017 as expected.
set -euo pipefail

STATICCHECK_VERSION=${STATICCHECK_VERSION:-v0.8.2}
GO=${GO:-go}

check_only=0 verbose=0
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    -v|--verbose) verbose=1 ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "install-tools: unknown option: $arg" >&2; exit 2 ;;
  esac
done

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/bin"
shared_xdnd="$root/../shared/tools/xdnd-drop"
mkdir -p "$bin"
command -v "$GO" >/dev/null 2>&1 || { echo "install-tools: '$GO' not found on PATH" >&2; exit 1; }
go_version=$("$GO" env GOVERSION)
say() { [ "$verbose" = 0 ] || echo "install-tools: $*"; }
stale=()

# Compiled-with Go version of a Go binary ("" if unreadable).
built_with() { "$GO" version "$1" 2>/dev/null | awk '{print $2}'; }

# --- staticcheck -------------------------------------------------------------
sc="$bin/staticcheck"
want_sc=${STATICCHECK_VERSION#v}
if [ -x "$sc" ] && [[ $("$sc" -version 2>/dev/null) == *"($want_sc)"* ]] \
   && [ "$(built_with "$sc")" = "$go_version" ]; then
  say "staticcheck $("$sc" -version | awk '{print $2, $3}') current"
elif [ "$check_only" = 1 ]; then
  stale+=("staticcheck@$STATICCHECK_VERSION")
else
  echo "install-tools: installing staticcheck@$STATICCHECK_VERSION with $go_version"
  if ! GOBIN="$bin" GOFLAGS=-buildvcs=false "$GO" install \
       "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"; then
    echo "install-tools: go install staticcheck@$STATICCHECK_VERSION failed" >&2; exit 1
  fi
  "$sc" -version >/dev/null || { echo "install-tools: $sc does not run" >&2; exit 1; }
fi

# --- xdnd-drop (optional: only where ../shared is beside the repo) ----------
xd="$bin/xdnd-drop"
if [ ! -d "$shared_xdnd" ]; then
  echo "install-tools: note: $shared_xdnd not found; skipping bin/xdnd-drop (only GUI drop tests need it)"
else
  newer=""
  [ -x "$xd" ] && newer=$(find "$shared_xdnd" -newer "$xd" -type f \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' \) | sed -n 1p)
  if [ -x "$xd" ] && [ -z "$newer" ] && [ "$(built_with "$xd")" = "$go_version" ]; then
    say "xdnd-drop current"
  elif [ "$check_only" = 1 ]; then
    stale+=("xdnd-drop")
  else
    echo "install-tools: building bin/xdnd-drop from ../shared/tools/xdnd-drop"
    # -C changes directory first, so -o must be absolute. The module has its own go.mod.
    if ! GOFLAGS=-buildvcs=false "$GO" build -C "$shared_xdnd" -o "$xd" .; then
      echo "install-tools: building xdnd-drop failed" >&2; exit 1
    fi
  fi
fi

if [ ${#stale[@]} -ne 0 ]; then
  echo "install-tools: missing or stale: ${stale[*]}" >&2
  exit 1
fi
exit 0
