#!/usr/bin/env bash
# install-smoke.sh - test `make install`'s tree: install a lazuli binary into a
# temporary prefix with scripts/install.sh, check the files, the .desktop entry and
# `lazuli --version`, then launch the entry's Exec command (field codes dropped, in an
# empty folder) under Xvfb with scripts/screenshot.sh: the window must appear (not
# blank, titled Lazuli), then it is closed.
#
# Usage: scripts/install-smoke.sh [--bin BINARY] [--out FILE.png] [--wait S]
#   --bin BINARY  the binary to install (default bin/lazuli; not rebuilt)
#   --out FILE    the capture (default out/install-smoke.png; its log beside it)
#   --wait S      seconds between start and capture (default 4)
# Exit: 0 ok, 1 a check failed, 2 usage, else screenshot.sh's code.
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/bin/lazuli" out="$root/out/install-smoke.png" wait_s=4
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --wait) wait_s=${2:?}; shift 2 ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "install-smoke: unknown option '$1'" >&2; exit 2 ;;
  esac
done
fail() { echo "install-smoke: FAIL: $*" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/pre fix" # a space, as in many home folders
bash "$root/scripts/install.sh" "$prefix" "$bin" >/dev/null

id=io.github.lazuli_app.lazuli
desktop="$prefix/share/applications/$id.desktop"
for f in "$prefix/bin/lazuli" "$desktop" "$prefix/share/icons/hicolor/512x512/apps/$id.png" \
         "$prefix/share/icons/hicolor/scalable/apps/$id.svg"; do
  [ -s "$f" ] || fail "missing $f"
done
[ -x "$prefix/bin/lazuli" ] || fail "bin/lazuli is not executable"
for line in 'Type=Application' 'Name=Lazuli' "Icon=$id" 'MimeType=x-scheme-handler/lazuli;'; do
  grep -qxF "$line" "$desktop" || fail "$desktop lacks '$line'"
done
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate "$desktop" || fail "desktop-file-validate rejects $desktop"
fi
version=$("$prefix/bin/lazuli" --version) || fail "lazuli --version failed"
grep -Eq '^Lazuli [0-9]+\.[0-9]+\.[0-9]+ ' <<<"$version" || fail "lazuli --version printed: $version"

# The Exec line as a desktop launcher runs it: field codes (%u) dropped, quotes honoured.
exec_line=$(sed -n 's/^Exec=//p' "$desktop")
exec_line=${exec_line//%[uUfF]/}
eval "cmd=($exec_line)"
[ "${cmd[0]}" = "$prefix/bin/lazuli" ] || fail "Exec runs '${cmd[0]}', want the installed binary"

shot="$root/scripts/screenshot.sh"
[ -f "$shot" ] || shot="$root/../shared/tools/screenshot.sh"
mkdir -p "$tmp/project" "$(dirname -- "$out")"
log="${out%.png}.log"
echo "install-smoke: $version" | head -1
echo "install-smoke: (cd an empty folder &&${cmd[*]/#/ })"
set +e
(cd "$tmp/project" && bash "$shot" "$out" --wait "$wait_s" --min-colors 8 --window Lazuli --log "$log" -- "${cmd[@]}")
rc=$?
set -e
[ "$rc" -eq 0 ] || { echo "install-smoke: FAIL: screenshot.sh exited $rc (log: $log)" >&2; exit "$rc"; }
echo "install-smoke: ok: $out"
