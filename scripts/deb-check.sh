#!/usr/bin/env bash
# deb-check.sh - install, launch and remove the Debian package (CI; needs root).
#
# Usage: scripts/deb-check.sh [DEB] [--out FILE.png]   (default: out/lazuli_VERSION_ARCH.deb,
#        out/deb-window.png)
# 1. Before installing: the package holds both binaries, the desktop entry (lazuli://
#    handler), the icon and the man page, and its Depends names the package of every
#    library lazuli-window links (readelf NEEDED, found with dpkg -S).
# 2. dpkg -i, then apt-get install -f for the declared dependencies; every file of
#    dpkg -L is there; /usr/bin/lazuli --version and help run; man -w finds lazuli(1).
# 3. The installed desktop entry's Exec (field codes dropped) runs in an empty folder under
#    Xvfb (screenshot.sh): the window titled Lazuli appears and is not blank.
# 4. dpkg -r, then dpkg -P: no file of the dpkg -L list is left, nor an empty folder that
#    no other package owns, and dpkg knows nothing of lazuli any more.
# Refuses to run when lazuli is already installed (it would remove it).
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
version=$(awk -F'"' '/^Version *=/ {print $2; exit}' "$root/FyneApp.toml")
deb="$root/out/lazuli_${version}_$(dpkg --print-architecture).deb" shot_out="$root/out/deb-window.png"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) shot_out=${2:?}; shift 2 ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    -*) echo "deb-check: unknown option '$1'" >&2; exit 2 ;;
    *) deb=$1; shift ;;
  esac
done
fail() { echo "deb-check: FAIL: $*" >&2; exit 1; }
[ -f "$deb" ] || fail "$deb missing (make deb)"
[ "$(id -u)" = 0 ] || fail "needs root (dpkg -i)"
installed() { local s; s=$(dpkg-query -W -f='${Status}' lazuli 2>/dev/null) || return 1; [[ $s != *not-installed* ]]; }
if installed; then
  fail "a lazuli package is already installed ($(dpkg-query -W -f='${Version} ${Status}' lazuli)); remove it first"
fi
id=io.github.lazuli_app.lazuli
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-debcheck.XXXXXX")
cleanup() {
  # Never leave the package installed when a check failed halfway.
  if installed; then dpkg -P lazuli >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# 1. Contents and Depends.
dpkg-deb -x "$deb" "$tmp/x"
for f in usr/bin/lazuli usr/bin/lazuli-window "usr/share/applications/$id.desktop" \
         "usr/share/icons/hicolor/512x512/apps/$id.png" usr/share/man/man1/lazuli.1.gz usr/share/doc/lazuli/copyright; do
  [ -s "$tmp/x/$f" ] || fail "the package lacks /$f"
done
grep -qxF 'MimeType=x-scheme-handler/lazuli;' "$tmp/x/usr/share/applications/$id.desktop" || fail "the desktop entry does not handle lazuli://"
[[ $(file -b "$tmp/x/usr/bin/lazuli") == *'statically linked'* ]] || fail "/usr/bin/lazuli is not static"
depends=$(dpkg-deb -f "$deb" Depends)
# No reader in this script leaves a pipe early (head, grep -q, awk's exit): with
# pipefail, a writer still writing would die of SIGPIPE and end the script with 141.
ldcache=$(ldconfig -p)
for lib in $(readelf -d "$tmp/x/usr/bin/lazuli-window" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  path=$(awk -v l="$lib" '!found && $1 == l && /x86-64|aarch64|AArch64/ {print $NF; found = 1}' <<<"$ldcache")
  [ -n "$path" ] || fail "lazuli-window needs $lib, which this machine lacks"
  pkg=$( { dpkg -S "$path" || dpkg -S "$(readlink -f "$path")" || dpkg -S "/usr$path"; } 2>/dev/null | sed -n '1s/:.*//p')
  [ -n "$pkg" ] || fail "no package owns $path ($lib)"
  grep -Eq "(^|, )$pkg( |,|$)" <<<"$depends" || fail "lazuli-window needs $lib ($pkg), not in Depends: $depends"
done
echo "deb-check: contents and Depends ok ($depends)"

# 2. Install.
export DEBIAN_FRONTEND=noninteractive
if ! dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1; then
  apt-get -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends install -f </dev/null >>"$tmp/dpkg.log" 2>&1 \
    || { cat "$tmp/dpkg.log" >&2; fail "apt-get install -f could not install the dependencies"; }
fi
[[ $(dpkg-query -W -f='${Status}' lazuli 2>/dev/null) == *'install ok installed'* ]] || { cat "$tmp/dpkg.log" >&2; fail "lazuli is not installed"; }
dpkg -L lazuli > "$tmp/list"
while IFS= read -r p; do
  [ -e "$p" ] || [ -L "$p" ] || fail "dpkg -L lists $p, which is not there"
done < "$tmp/list"
# Each output is read whole before grep looks at it: with pipefail, grep -q
# leaving at its first match would kill a writer still writing (SIGPIPE).
out=$(/usr/bin/lazuli --version 2>&1) || fail "lazuli --version: $out"
grep -q "^Lazuli $version " <<<"$out" || fail "lazuli --version: $out"
out=$(/usr/bin/lazuli help 2>&1) || fail "lazuli help: $out"
grep -q '^commands:' <<<"$out" || fail "lazuli help printed no commands"
if command -v man >/dev/null 2>&1; then
  [ "$(man -w lazuli 2>/dev/null)" = /usr/share/man/man1/lazuli.1.gz ] || fail "man -w lazuli: $(man -w lazuli 2>&1)"
fi
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate "/usr/share/applications/$id.desktop" || fail "desktop-file-validate rejects the entry"
fi
echo "deb-check: installed $(wc -l < "$tmp/list") paths"

# 3. Launch the installed entry as a desktop launcher would.
exec_line=$(sed -n 's/^Exec=//p' "/usr/share/applications/$id.desktop")
exec_line=${exec_line//%[uUfF]/}
eval "cmd=($exec_line)"
[ "${cmd[0]}" = /usr/bin/lazuli ] || fail "Exec runs '${cmd[0]}', want /usr/bin/lazuli"
shot="$root/scripts/screenshot.sh"
[ -f "$shot" ] || shot="$root/../shared/tools/screenshot.sh"
mkdir -p "$tmp/project" "$(dirname -- "$shot_out")"
set +e
(cd "$tmp/project" && bash "$shot" "$shot_out" --wait 5 --min-colors 8 --window Lazuli --log "${shot_out%.png}.log" -- "${cmd[@]}")
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "the installed entry's window did not show (screenshot.sh exited $rc; log ${shot_out%.png}.log)"
echo "deb-check: the installed entry opened the window: $shot_out"

# 4. Remove, purge, and look for anything left.
dpkg -r lazuli >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log" >&2; fail "dpkg -r lazuli failed"; }
dpkg -P lazuli >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log" >&2; fail "dpkg -P lazuli failed"; }
left=0
while IFS= read -r p; do
  if [ -d "$p" ] && [ ! -L "$p" ]; then
    # A folder may stay when another package owns it or it holds others' files.
    if [ -z "$(ls -A "$p")" ] && ! dpkg -S "$p" >/dev/null 2>&1; then echo "deb-check: left: empty folder $p" >&2; left=1; fi
  elif [ -e "$p" ] || [ -L "$p" ]; then
    echo "deb-check: left: $p" >&2; left=1
  fi
done < "$tmp/list"
[ "$left" = 0 ] || fail "files of the package are left after dpkg -r and -P"
if installed; then
  fail "dpkg still knows lazuli after purge: $(dpkg-query -W -f='${Status}' lazuli)"
fi
echo "deb-check: removed and purged; nothing of the $(wc -l < "$tmp/list") paths is left"
